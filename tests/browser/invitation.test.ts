import { randomUUID } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identityUrl, mailbox } from "#tests/helpers/identity";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { identityToken, invitationTokenIn, mailTo } from "#tests/helpers/team";
import { launchBrowser, screenshot, signedInPage, sizes } from "./browser.ts";

/** The page's sessionStorage, inside page callbacks (the tests' tsconfig has no DOM types). */
declare const sessionStorage: { getItem(key: string): string | null };

let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
});

afterAll(async () => {
  await browser?.close();
});

/** Invites a fresh address as an agent through the API: the address and the link its e-mail carries. */
async function invite(): Promise<{ email: string; id: string; link: string }> {
  const email = `invitee-${randomUUID()}@example.com`;
  const created = await org.request("POST", "/invitations", { body: { email, role: "agent" } });
  expect(created.status).toBe(201);
  const link = /(\S+#\/invitation\/inv_\S+)/.exec((await mailTo(email)).text)?.[1];
  expect(link).toBeDefined();
  return { email, id: created.body.id, link: link! };
}

async function atBothSizes(page: Page, name: string): Promise<void> {
  for (const size of sizes) {
    await page.setViewportSize({ width: size.width, height: size.height });
    // Nothing wider than the screen: the page reads without sideways scrolling on a phone.
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(size.width);
    await screenshot(page, `invitation-${name}-${size.name}`);
  }
}

/** The newest sign-in code e-mailed to `email`, once it has arrived. */
async function signInCode(email: string): Promise<string> {
  let code = "";
  await expect
    .poll(
      async () => (code = (await mailbox()).findLast((message) => message.to === email && message.code)?.code ?? ""),
      { timeout: 20_000 },
    )
    .not.toBe("");
  return code;
}

describe("accepting an invitation in the dashboard (Chromium)", () => {
  let context: BrowserContext | undefined;
  afterAll(async () => await context?.close());

  it("the invitee opens the e-mailed link, signs in with a one-time code, accepts and lands in the organization", async () => {
    const { email, link } = await invite();
    const token = invitationTokenIn(link);
    expect(link).toBe(`${baseUrl()}/app/#/invitation/${token}`);
    context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    // The issuer's pages link web fonts; this machine (and CI) has no internet, so those are refused at once.
    await context.route(/^https:\/\//, (route) => route.abort());
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    const urls: string[] = [];
    page.on("request", (request) => urls.push(request.url()));

    await page.goto(link);
    await page.getByRole("heading", { name: "Join your team" }).waitFor();
    expect(new URL(page.url()).hash).toBe("#/invitation"); // the token left the address bar (and the history)
    await atBothSizes(page, "sign-in");

    await page.getByRole("button", { name: "Sign in to accept" }).click();
    await page.waitForURL((url) => url.toString().startsWith(identityUrl()));
    await page.getByRole("link", { name: /one-time e-mail code/ }).click();
    await page.getByPlaceholder("Email").fill(email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByPlaceholder("Code").fill(await signInCode(email));
    await page.getByRole("button", { name: "Continue" }).click();

    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByTestId("lead-total").waitFor(); // an organization's report: the session now carries it
    const claims = await page.evaluate(() =>
      JSON.parse(atob(sessionStorage.getItem("accessToken")!.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))),
    );
    expect(claims.properties).toMatchObject({ email, role: "agent", org_id: org.organizationId });
    expect(await page.evaluate(() => sessionStorage.getItem("pendingInvitation"))).toBeNull();
    await atBothSizes(page, "joined");

    const members = await org.request("POST", "/users/all/my", {
      body: { filters: [{ field: "email", value: email }] },
    });
    expect(members.body.items).toMatchObject([{ email, role: "agent", id: claims.sub }]);
    // The invitation token reached the API in a request body only, never in a URL a server or proxy logs.
    expect(urls.filter((url) => url.includes(token))).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a revoked invitation, and one opened by another address, say why they cannot be used", async () => {
    const revoked = await invite();
    expect((await org.request("DELETE", `/invitations/${revoked.id}`)).status).toBe(204);
    const { page, errors } = await signedInPage(browser, await identityToken(revoked.email));
    await page.goto(revoked.link);
    await page.getByRole("heading", { name: "This invitation cannot be used" }).waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("revoked");
    await page.getByText("Ask the person who invited you to send a new invitation.").waitFor();
    await atBothSizes(page, "revoked");

    const pending = await invite();
    const stranger = await signedInPage(browser, await identityToken(`someone-${randomUUID()}@example.com`));
    await stranger.page.goto(pending.link);
    await stranger.page.getByRole("heading", { name: "This invitation cannot be used" }).waitFor();
    expect(await stranger.page.getByRole("alert").textContent()).toContain("another e-mail address");
    await stranger.page.getByRole("button", { name: "Sign in as another address" }).waitFor();
    await atBothSizes(stranger.page, "wrong-address");
    // Still pending: the wrong address used nothing up.
    const listed = await org.request("POST", "/invitations/all/my", { body: {} });
    expect(listed.status).toBe(200);
    expect(listed.body.items.find((item: { id: string }) => item.id === pending.id)).toMatchObject({
      status: "Pending",
    });
    expect([...errors, ...stranger.errors].filter((error) => !/40[39]/.test(error))).toEqual([]);
    await page.context().close();
    await stranger.page.context().close();
  });
});
