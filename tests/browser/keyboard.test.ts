import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addNumber, randomNumber, textFrom } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { launchBrowser, open, signedInPage, sizes } from "./browser.ts";

/**
 * Keyboard-only use (issue 29): the everyday tasks of the inbox, the lead page and Settings done with Tab, typing and
 * Enter alone, every stop showing where the focus is. The pages are opened by address (as a bookmark would); what is
 * done on them uses no mouse. Each task's result is read back through the API.
 */

let browser: Browser;
let org: TestOrganization;
let number: { id: string; phoneNumber: string };

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  number = await addNumber(org);
  // The replies below are sent at once, whatever the hour of the run (quiet hours off; the settings are written whole).
  const settings = await org.request("PUT", "/messaging/settings", {
    body: { quietHours: { start: "00:00", end: "00:00" } },
  });
  if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${JSON.stringify(settings.body)}`);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/**
 * Presses Tab until `target` has the focus (at most `presses` times), and checks the focus is drawn: an outline or a
 * ring a sighted keyboard user can follow.
 */
async function tabTo(page: Page, target: Locator, presses = 60): Promise<void> {
  await target.waitFor();
  for (let press = 0; press < presses; press++) {
    await page.keyboard.press("Tab");
    if (await target.evaluate((element) => element === element.ownerDocument.activeElement)) {
      const drawn = await target.evaluate((element) => {
        const style = element.ownerDocument.defaultView!.getComputedStyle(element);
        return (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== "none";
      });
      expect(drawn, "the focused control shows its focus").toBe(true);
      return;
    }
  }
  throw new Error(`Tab never reached ${target}`);
}

/** Starts the keyboard at the top of the page, as after loading it. */
async function fromTop(page: Page): Promise<void> {
  await page.getByRole("link", { name: "Skip to content" }).focus();
}

describe("keyboard-only use", () => {
  it("a reply in the inbox: Tab to the conversation, Enter, type, Tab to Send, Enter", async () => {
    const phone = randomNumber("646");
    const lead = await org.request("POST", "/leads", {
      body: { contact: { firstName: "Kira", lastName: "Keys", phone: { number: phone } } },
    });
    expect(lead.status).toBe(201);
    await textFrom(phone, number.phoneNumber, "Do you have time on Friday?");
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/conversations", "Conversations");
      const conversation = page.getByTestId("inbox").getByRole("link", { name: /Kira Keys/ });
      await fromTop(page);
      await tabTo(page, conversation);
      await page.keyboard.press("Enter");
      const reply = page.getByLabel("Reply", { exact: true });
      await tabTo(page, reply);
      const text = `Friday at 10 works (${size.name}).`;
      await page.keyboard.type(text);
      await tabTo(page, page.getByRole("button", { name: "Send" }));
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await sentTexts(org)).includes(text), { timeout: 20_000 }).toBe(true);
    }
    expect(errors).toEqual([]);
  });

  it("a note on a lead and the organization's phone in Settings, by keyboard alone", async () => {
    const lead = await org.request("POST", "/leads", {
      body: { contact: { firstName: "Nico", lastName: "Keys", phone: { number: randomNumber("212") } } },
    });
    expect(lead.status).toBe(201);
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, `/leads/${lead.body.id}`, "Timeline");
      await fromTop(page);
      await tabTo(page, page.getByLabel("Note about this lead (only your team sees it)"));
      const note = `Prefers mornings (${size.name}).`;
      await page.keyboard.type(note);
      await tabTo(page, page.getByRole("button", { name: "Add note" }));
      await page.keyboard.press("Enter");
      await expect.poll(async () => (await notesOf(org, lead.body.id)).includes(note), { timeout: 20_000 }).toBe(true);

      await open(page, "/settings", "Settings");
      await fromTop(page);
      const phoneField = page.getByLabel("Business phone");
      await tabTo(page, phoneField);
      const phone = randomNumber("415");
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.type(phone);
      await tabTo(page, page.getByRole("button", { name: "Save organization" }));
      await page.keyboard.press("Enter");
      await expect
        .poll(async () => (await org.request("GET", "/organizations/me")).body.phone, { timeout: 20_000 })
        .toBe(phone);
    }
    expect(errors).toEqual([]);
  });
});

/** The bodies of the organization's outbound texts, newest first. */
async function sentTexts(organization: TestOrganization): Promise<string[]> {
  const listed = await organization.request("POST", "/events/all/my", {
    body: { filters: [{ field: "eventType", value: "MessageQueued" }], pageSize: 100 },
  });
  const ids: string[] = listed.body.items.map((event: any) => event.relatedEntityId);
  const messages = await Promise.all(ids.map((id) => organization.request("GET", `/messages/${id}`)));
  return messages.map((message) => message.body.body);
}

/** The texts of a lead's notes (its LeadNoteAdded events). */
async function notesOf(organization: TestOrganization, leadId: string): Promise<string[]> {
  const listed = await organization.request("POST", "/events/all/my", {
    body: { filters: [{ field: "leadId", value: leadId }], pageSize: 50 },
  });
  return listed.body.items
    .filter((event: any) => event.eventType === "LeadNoteAdded")
    .map((event: any) => event.summary);
}
