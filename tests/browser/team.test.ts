import { randomUUID } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrganization, request, type TestOrganization } from "#tests/helpers/stack";
import { mailTo } from "#tests/helpers/team";
import { launchBrowser, screenshot, signedInPage } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
});

afterAll(async () => {
  await browser?.close();
});

/** Screenshots at both sizes, and no sideways scrolling on the phone. */
async function atEverySize(page: import("playwright-core").Page, name: string) {
  for (const size of sizes) {
    await page.setViewportSize(size);
    await screenshot(page, `${name}-${size.name}`);
    expect(
      await page.evaluate("document.documentElement.scrollWidth"),
      `${name} at ${size.width} px`,
    ).toBeLessThanOrEqual(size.width);
  }
}

const sizes = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

describe("team, API keys and audit log pages in Chromium", () => {
  it("the Team page lists the members, invites by e-mail, changes a role and deactivates", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    page.on("dialog", (dialog) => void dialog.accept());
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team" }).click();
    const members = page.getByTestId("members");
    await members.getByText("Test agent").waitFor();
    expect(await members.locator("tbody tr").count()).toBe(3);

    const email = `browser-${randomUUID()}@example.com`;
    await page.getByLabel("E-mail").fill(email);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByRole("status").getByText(`Invitation sent to ${email}.`).waitFor();
    await page.getByRole("heading", { name: "Pending invitations" }).waitFor();
    expect((await mailTo(email)).subject).toContain("invited you");

    await page.getByLabel("Role of Test agent").selectOption("admin");
    await page.getByRole("status").getByText("Test agent is now admin.").waitFor();
    const agent = (
      await org.request("POST", "/users/all/my", { body: { filters: [{ field: "id", value: org.userIds.agent }] } })
    ).body.items[0];
    expect(agent.role).toBe("admin");

    await members.locator("tr", { hasText: "Test admin" }).getByRole("button", { name: "Deactivate" }).click();
    await page.getByRole("status").getByText("Test admin was deactivated.").waitFor();
    await atEverySize(page, "team");
    expect(errors).toEqual([]);
  });

  it("a pending invitation is revoked after a confirmation: it leaves the list and the API lists it as Revoked", async () => {
    const email = `revoke-${randomUUID()}@example.com`;
    const invited = await org.request("POST", "/invitations", { body: { email, role: "agent" } });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Team" }).click();
    const row = page.getByTestId("invitations").locator("li", { hasText: email });
    await row.waitFor();
    const revoke = row.getByRole("button", { name: `Revoke the invitation to ${email}`, exact: true });

    // Asked first: "Keep it" leaves the invitation pending.
    await revoke.click();
    await row.getByRole("button", { name: "Keep it" }).click();
    await revoke.waitFor();
    await atEverySize(page, "team-invitations");

    await revoke.click();
    await row.getByRole("button", { name: `Revoke the invitation to ${email} for good` }).click();
    await page.getByRole("status").getByText(`The invitation to ${email} was revoked.`).waitFor();
    await expect.poll(() => row.count()).toBe(0);
    const listed = await org.request("POST", "/invitations/all/my", {
      body: { filters: [{ field: "email", value: email }] },
    });
    expect(listed.body.items.map((invitation: any) => [invitation.id, invitation.status])).toEqual([
      [invited.body.id, "Revoked"],
    ]);
    expect(errors).toEqual([]);
  });

  it("the API keys page shows a new key's secret once, and rotates and revokes keys", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    page.on("dialog", (dialog) => void dialog.accept());
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Name").fill("Browser key");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = (await page.getByTestId("new-secret").textContent())!;
    expect(secret).toMatch(/^sk_/);
    expect((await request("POST", "/leads/all/my", { token: secret, body: {} })).status).toBe(200);
    await atEverySize(page, "api-keys-created");
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByTestId("new-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    const row = page.getByTestId("api-keys").locator("tr", { hasText: "Browser key" });
    await row.first().getByRole("button", { name: "Rotate" }).click();
    const rotated = (await page.getByTestId("new-secret").textContent())!;
    expect(rotated).not.toBe(secret);
    await page.getByRole("button", { name: "Done" }).click();
    await page.getByTestId("api-keys").locator("tr", { hasText: "Expiring" }).waitFor();

    await page
      .getByTestId("api-keys")
      .locator("tr", { hasText: "Active" })
      .filter({ hasText: "Browser key" })
      .getByRole("button", { name: "Revoke" })
      .click();
    await page.getByTestId("api-keys").locator("tr", { hasText: "Revoked" }).waitFor();
    await expect
      .poll(async () => (await request("POST", "/leads/all/my", { token: rotated, body: {} })).status, {
        timeout: 30_000,
      })
      .toBe(401);
    expect(errors).toEqual([]);
  });

  it("the Audit log page shows who changed what, newest first", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click();
    const log = page.getByTestId("audit-log");
    await log.getByText("apiKey.revoked").waitFor();
    expect(await log.locator("tbody tr").first().textContent()).toContain("apiKey.revoked");
    await log.getByText("user.roleChanged").waitFor();
    expect(await log.textContent()).not.toContain("sk_");
    await atEverySize(page, "audit-log");
    expect(errors).toEqual([]);
  });
});
