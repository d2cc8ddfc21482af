import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitForLead } from "#tests/helpers/leads";
import { addNumber, createLead, randomNumber } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import {
  errorOf,
  launchBrowser,
  noSideways,
  open,
  screenshot,
  signedInPage,
  sizes,
  smallTouchTargets,
} from "./browser.ts";

let browser: Browser;
let org: TestOrganization;
let number: { id: string; phoneNumber: string };
let myPhone: string;
let admin: { id: string; name: string };

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  number = await addNumber(org);
  myPhone = randomNumber("646");
  expect((await org.request("PUT", "/users/me", { body: { phone: myPhone } })).status).toBe(200);
  const users = (await org.request("POST", "/users/all/my", { body: { pageSize: 50 } })).body.items as any[];
  admin = users.find((user) => user.id === org.userIds.admin)!;
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe("the lead page's actions at a laptop's and a phone's size", () => {
  it("assigns and unassigns, calls through the owner's phone, and opts the lead out after asking", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      const phone = randomNumber();
      const lead = await createLead(org, phone);
      // Assigned once processed: the page is opened on a lead a person would see, not one still in intake.
      await waitForLead(org, lead.id);
      // Through the list, so the page shown is this lead's and not the previous size's lead.
      await open(page, "/leads", "Leads");
      await open(page, `/leads/${lead.id}`, "Timeline");
      expect(await page.getByTestId("assignee").textContent()).toBe("Unassigned");

      const assignTo = page.getByLabel("Assign to");
      await expect.poll(() => assignTo.isEnabled()).toBe(true);
      await assignTo.selectOption({ label: admin.name });
      await expect.poll(() => page.getByTestId("assignee").textContent()).toBe(admin.name);
      await expect.poll(async () => (await org.request("GET", `/leads/${lead.id}`)).body.assignedUserId).toBe(admin.id);
      await assignTo.selectOption({ label: "Unassigned" });
      await expect.poll(() => page.getByTestId("assignee").textContent()).toBe("Unassigned");
      await expect.poll(async () => (await org.request("GET", `/leads/${lead.id}`)).body.assignedUserId).toBeNull();

      const placed = page.waitForRequest((request) => request.method() === "POST" && request.url().endsWith("/calls"));
      await page.getByRole("button", { name: "Call lead" }).click();
      expect((await placed).postDataJSON()).toEqual({ leadId: lead.id, connectTo: myPhone });
      await expect
        .poll(() => page.getByTestId("call-answer").textContent())
        .toBe(`Calling from ${number.phoneNumber}: your phone (${myPhone}) rings first, then the lead is dialed.`);

      expect(await page.getByTestId("suppression").textContent()).toBe("Not suppressed");
      await page.getByRole("button", { name: "Opt out", exact: true }).click();
      // Nothing is stored until the person confirms.
      expect((await suppressionsOf(phone)).length).toBe(0);
      await page.getByRole("button", { name: "Opt out for good" }).click();
      await expect
        .poll(() => page.getByTestId("suppression").textContent())
        .toBe("Opted out (on the suppression list)");
      expect(await suppressionsOf(phone)).toMatchObject([{ phoneNumber: phone, reason: "Manual" }]);

      await noSideways(page, size.width);
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await screenshot(page, `lead-actions-${size.name}`);

      // Opened anew, the page reads the suppression list: the lead still shows as opted out.
      await open(page, "/leads", "Leads");
      await open(page, `/leads/${lead.id}`, "Timeline");
      await expect
        .poll(() => page.getByTestId("suppression").textContent())
        .toBe("Opted out (on the suppression list)");
    }
    expect(errors).toEqual([]);
  }, 180_000);

  it("adds a note the timeline shows at once, with the lead's assignment, each in its own row", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      const lead = await createLead(org, randomNumber());
      await waitForLead(org, lead.id);
      expect((await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: admin.id } })).status).toBe(200);
      await open(page, "/leads", "Leads");
      await open(page, `/leads/${lead.id}`, "Timeline");
      const note = `Prefers a call after 5 pm (${size.name})`;
      await page.getByLabel("Note about this lead (only your team sees it)").fill(note);
      await page.getByRole("button", { name: "Add note" }).click();
      await expect
        .poll(() => page.getByTestId("note-answer").textContent())
        .toBe("Note added. Only your team sees it.");
      const timeline = page.getByTestId("timeline");
      await expect.poll(() => timeline.getByText(note).count()).toBe(1);
      await expect.poll(() => timeline.getByText(`assigned to ${admin.name}`).count()).toBe(1);
      const stored = await org.request("POST", "/events/all/my", {
        body: { filters: [{ field: "leadId", value: lead.id }], pageSize: 50 },
      });
      const notes = stored.body.items.filter((event: any) => event.eventType === "LeadNoteAdded");
      expect(notes).toMatchObject([{ summary: note, actorUserId: org.userIds.owner }]);
      expect(await timeline.getByText(`Note by ${notes[0].actorDisplayName}`).count()).toBe(1);

      // An empty note is refused in the API's words, beside the form.
      await page.getByRole("button", { name: "Add note" }).click();
      await expect.poll(() => page.getByTestId("note-answer").textContent()).toContain("A note needs a text.");
      await noSideways(page, size.width);
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await screenshot(page, `lead-note-${size.name}`);
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  }, 120_000);

  it("a refused assignment is explained in the API's words", async () => {
    const lead = await createLead(org, randomNumber());
    await waitForLead(org, lead.id);
    const refused = await org.request("PUT", `/leads/${lead.id}/assignee`, {
      body: { userId: admin.id },
      token: org.agentToken,
    });
    expect(refused.status).toBe(403);
    const { page } = await signedInPage(browser, org.agentToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, `/leads/${lead.id}`, "Timeline");
      const assignTo = page.getByLabel("Assign to");
      await expect.poll(() => assignTo.isEnabled()).toBe(true);
      await assignTo.selectOption({ label: admin.name });
      await expect.poll(() => page.getByTestId("assign-answer").textContent()).toBe(refused.body.detail);
      expect(await page.getByTestId("assignee").textContent()).toBe("Unassigned");
      expect(await assignTo.inputValue()).toBe("");
      await noSideways(page, size.width);
      await screenshot(page, `lead-assign-refused-${size.name}`);
    }
  }, 120_000);
});

describe("the low-balance alert threshold on the billing page", () => {
  it("a refused amount is explained beside the field; a saved one is stored and shown", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const [index, size] of sizes.entries()) {
      await page.setViewportSize(size);
      await open(page, "/billing", "Low-balance alert");
      const field = page.getByLabel("Alert below (USD)", { exact: true });
      await field.fill("lots");
      await page.getByRole("button", { name: "Save threshold" }).click();
      expect(await errorOf(page, "Alert below (USD)")).toBeTruthy();

      const threshold = index === 0 ? "25" : "7.5";
      await field.fill(threshold);
      await page.getByRole("button", { name: "Save threshold" }).click();
      const shown = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(Number(threshold));
      await expect
        .poll(() => page.getByTestId("threshold-saved").textContent())
        .toBe(`Saved: you are alerted below ${shown}.`);
      expect(Number((await org.request("GET", "/billing/wallet")).body.lowBalanceThreshold)).toBe(Number(threshold));
      expect(await page.getByTestId("wallet-balance").textContent()).toBeTruthy();
      expect(await field.getAttribute("aria-invalid")).toBeNull();
      await noSideways(page, size.width);
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await screenshot(page, `billing-threshold-${size.name}`);
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  }, 120_000);
});

async function suppressionsOf(phone: string): Promise<any[]> {
  const listed = await org.request("POST", "/suppressions/all/my", {
    body: { filters: [{ field: "phoneNumber", value: phone }] },
  });
  return listed.body.items;
}
