import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { callFrom, waitForCall } from "#tests/helpers/calls";
import { addNumber, magic, randomNumber, sleep, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { launchBrowser, open, screenshot, signedInPage, sizes, smallTouchTargets } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;
let number: { id: string; phoneNumber: string };
/** Nina texts and talks: an answered, recorded call and a missed one. Omar only texts. */
let nina: { lead: { id: string }; phone: string; conversationId: string };
let omar: { lead: { id: string }; phone: string; conversationId: string };
let recorded: any;
let missed: any;

async function conversationOf(phone: string): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const listed = await org.request("POST", "/conversations/all/my", {
      body: { filters: [{ field: "contactPhoneNumber", value: phone }] },
    });
    if (listed.body.items[0]) return listed.body.items[0].id;
    if (Date.now() > deadline) throw new Error(`no conversation with ${phone}`);
    await sleep(150);
  }
}

async function texter(firstName: string, lastName: string, phone: string, text: string) {
  const created = await org.request("POST", "/leads", {
    body: { contact: { firstName, lastName, phone: { number: phone } } },
  });
  if (created.status !== 201) throw new Error(`lead: ${created.status} ${JSON.stringify(created.body)}`);
  await textFrom(phone, number.phoneNumber, text);
  return { lead: created.body, phone, conversationId: await conversationOf(phone) };
}

/** Opens a page anew, even when it is the one showing. */
async function reopen(page: Page, route: string, heading: string | RegExp): Promise<void> {
  await open(page, "/leads", "Leads");
  await open(page, route, heading);
}

const row = (page: Page, conversationId: string) => page.locator(`[data-conversation-id="${conversationId}"]`);
const names = (page: Page) => page.getByTestId("inbox").locator(".who strong").allTextContents();

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  number = await addNumber(org);
  // Nina's number answers calls and records them (simulator scenario 25); texts to it are delivered.
  nina = await texter("Nina", "Patel", magic("25"), "Can you call me about the quote?");
  omar = await texter("Omar", "Haddad", randomNumber(), "Is Saturday possible?");
  const placed = await org.request("POST", "/calls", { body: { leadId: nina.lead.id, record: true } });
  if (placed.status !== 202 && placed.status !== 201) throw new Error(`call: ${placed.status}`);
  recorded = await waitForCall(org, placed.body.id, (call) => call.status === "Completed" && call.recordingUrl);
  // Nobody answers the forwarded call (scenario 22): Nina's call back is missed. The settings are written whole, so
  // quiet hours stay off in the same write (a test run at night would otherwise schedule the replies).
  const settings = await org.request("PUT", "/messaging/settings", {
    body: { inboundCalls: { forwardTo: magic("22", "646") }, quietHours: { start: "00:00", end: "00:00" } },
  });
  if (settings.status !== 200) throw new Error(`settings: ${settings.status} ${JSON.stringify(settings.body)}`);
  await callFrom(nina.phone, number.phoneNumber);
  const deadline = Date.now() + 20_000;
  while (!missed && Date.now() < deadline) {
    const calls = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "conversationId", value: nina.conversationId }], pageSize: 100 },
    });
    const event = calls.body.items.find((item: any) => item.eventType === "CallMissed");
    if (event) missed = (await org.request("GET", `/calls/${event.relatedEntityId}`)).body;
    else await sleep(200);
  }
  if (!missed) throw new Error("the missed call was never recorded");
}, 180_000);

// Each test's page polls the inbox every 10 s while it stays open: closed, so the pages of earlier tests do not spend
// the organization's 300 requests a minute under a later one (a 429 is an error on its console).
afterEach(async () => {
  for (const context of browser.contexts()) await context.close();
});

afterAll(async () => {
  await browser?.close();
});

describe("the inbox at a laptop's and a phone's size", () => {
  it("lists the lead's name, preview, unread badge and assignee, and filters mine, unassigned, unread and all", async () => {
    await org.request("PUT", `/conversations/${omar.conversationId}/assignee`, { body: { userId: org.userIds.owner } });
    await org.request("PUT", `/conversations/${nina.conversationId}/assignee`, { body: { userId: null } });
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, "/conversations", "Conversations");
      const omarRow = row(page, omar.conversationId);
      await expect.poll(() => omarRow.locator(".who strong").textContent()).toBe("Omar Haddad");
      expect(await omarRow.locator(".preview").textContent()).toBe("Is Saturday possible?");
      expect(await omarRow.locator(".unread-count").textContent()).toBe("1 unread");
      await expect.poll(() => omarRow.getByTestId("assignee").textContent()).toBe("You");
      expect(await row(page, nina.conversationId).getByTestId("assignee").textContent()).toBe("Unassigned");
      await screenshot(page, `inbox-list-${size.name}`, { fullPage: false });

      const show = page.getByLabel("Show");
      await show.selectOption("mine");
      await expect.poll(() => names(page)).toEqual(["Omar Haddad"]);
      await show.selectOption("unassigned");
      await expect.poll(() => names(page)).toEqual(["Nina Patel"]);
      await show.selectOption("unread");
      await expect.poll(() => names(page)).toContain("Omar Haddad");
      await show.selectOption("all");
      await expect.poll(async () => (await names(page)).sort()).toEqual(["Nina Patel", "Omar Haddad"]);

      const search = page.getByLabel("Search by name or number");
      await search.fill("pat");
      await expect.poll(() => names(page)).toEqual(["Nina Patel"]);
      const digits = omar.phone.slice(-7);
      await search.fill(`${digits.slice(0, 3)}-${digits.slice(3)}`);
      await expect.poll(() => names(page)).toEqual(["Omar Haddad"]);
      await search.fill("");
    }
    expect(errors).toEqual([]);
  });

  it("opening a conversation clears its unread badge; messages and calls share one timeline", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await textFrom(nina.phone, number.phoneNumber, `Still there? (${size.name})`);
      await reopen(page, "/conversations", "Conversations");
      await expect.poll(() => row(page, nina.conversationId).locator(".unread-count").count()).toBe(1);
      await row(page, nina.conversationId).locator("a").click();
      await page.getByRole("heading", { name: "Nina Patel" }).waitFor();
      const thread = page.getByTestId("thread");
      await thread.getByText(`Still there? (${size.name})`).waitFor();
      // Calls in the thread: the recorded one answered with its length and recording, the missed one marked.
      const answered = thread.locator(`[data-call-id="${recorded.id}"]`);
      expect(await answered.getByTestId("call-summary").textContent()).toBe(
        `Outgoing call, answered · ${recorded.duration >= 60 ? `${Math.floor(recorded.duration / 60)} min ${String(recorded.duration % 60).padStart(2, "0")} s` : `${recorded.duration} s`}`,
      );
      expect(await answered.getByRole("link", { name: "Listen to the recording" }).getAttribute("href")).toBe(
        recorded.recordingUrl,
      );
      expect(await thread.locator(`[data-call-id="${missed.id}"]`).getByTestId("call-summary").textContent()).toBe(
        "Missed call",
      );
      // The order is the order things happened: texts, the call out, the call in, the latest text.
      const order = await thread
        .locator(":scope > li")
        .evaluateAll((items) =>
          items.map((item) => item.getAttribute("data-call-id") ?? item.getAttribute("data-message-id") ?? "other"),
        );
      expect(order.indexOf(recorded.id)).toBeLessThan(order.indexOf(missed.id));
      await screenshot(page, `inbox-thread-${size.name}`, { fullPage: false });
      await expect
        .poll(async () => (await org.request("GET", `/conversations/${nina.conversationId}`)).body.unreadCount)
        .toBe(0);
      await page.getByRole("link", { name: "← Inbox" }).click();
      await page.getByRole("heading", { name: "Conversations" }).waitFor();
      await expect.poll(() => row(page, nina.conversationId).locator(".unread-count").count()).toBe(0);
    }
    expect(errors).toEqual([]);
  });

  it("assigns and reassigns the conversation from the thread", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, `/conversations/${omar.conversationId}`, "Omar Haddad");
      const picker = page.getByLabel("Assigned to");
      await expect.poll(() => picker.locator("option").count()).toBeGreaterThan(3);
      const saved = page.waitForResponse((response) => response.url().endsWith("/assignee"));
      await picker.selectOption({ label: "Test agent" });
      expect((await saved).status()).toBe(200);
      await expect
        .poll(async () => (await org.request("GET", `/conversations/${omar.conversationId}`)).body.assignedUserId)
        .toBe(org.userIds.agent);
      await page.getByTestId("thread").getByText("assigned to Test agent").first().waitFor();
      await picker.selectOption({ label: "Test admin" });
      await expect
        .poll(async () => (await org.request("GET", `/conversations/${omar.conversationId}`)).body.assignedUserId)
        .toBe(org.userIds.admin);
      await screenshot(page, `inbox-assigned-${size.name}`, { fullPage: false });
    }
    expect(errors).toEqual([]);
  });

  it("replies with a picture (MMS) and with a canned reply saved for the organization, then deletes it", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, `/conversations/${omar.conversationId}`, "Omar Haddad");
      const sent = () =>
        page.waitForResponse(
          (response) => response.url().endsWith("/messages") && response.request().method() === "POST",
        );

      const picture = sent();
      await page.getByLabel("Reply", { exact: true }).fill(`Here is the plan (${size.name}).`);
      await page.getByLabel(/Picture address/).fill("https://example.com/plan.png");
      await page.getByRole("button", { name: "Send" }).click();
      const mms = await (await picture).json();
      expect(mms).toMatchObject({
        channel: "Mms",
        media: [{ url: "https://example.com/plan.png", contentType: "image/png" }],
      });
      await page.getByTestId("send-answer").waitFor();
      await page.getByTestId("thread").getByRole("link", { name: "Attachment (image/png)" }).first().waitFor();

      // A canned reply: saved under the thread, offered beside the reply, sent, deleted.
      await page.locator("details.canned summary").click();
      await page.getByLabel("Name of a new canned reply").fill(`Opening hours ${size.name}`);
      await page.getByLabel("Its text").fill("We are open 9 to 5, Monday to Saturday.");
      await page.getByRole("button", { name: "Save canned reply" }).click();
      await page.getByText(`Saved “Opening hours ${size.name}”`).waitFor();
      await page.getByLabel("Insert a canned reply").selectOption({ label: `Opening hours ${size.name}` });
      expect(await page.getByLabel("Reply", { exact: true }).inputValue()).toBe(
        "We are open 9 to 5, Monday to Saturday.",
      );
      const canned = sent();
      await page.getByRole("button", { name: "Send" }).click();
      expect((await (await canned).json()).body).toBe("We are open 9 to 5, Monday to Saturday.");
      await screenshot(page, `inbox-reply-${size.name}`, { fullPage: false });
      await page.getByRole("button", { name: `Delete canned reply Opening hours ${size.name}` }).click();
      await page.getByText(`Deleted “Opening hours ${size.name}”.`).waitFor();
      const left = await org.request("POST", "/canned-replies/all/my", { body: {} });
      expect(left.body.items.map((reply: { name: string }) => reply.name)).not.toContain(`Opening hours ${size.name}`);
      await waitForMessage(org, mms.id);
    }
    expect(errors).toEqual([]);
  });

  it("adds an internal note that shows in the thread and is never sent", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, `/conversations/${omar.conversationId}`, "Omar Haddad");
      const before = (await org.request("GET", `/conversations/${omar.conversationId}`)).body;
      await page.getByLabel("Internal note").check();
      await page.getByLabel(/Internal note \(only your team/).fill(`Wants a Saturday slot (${size.name}).`);
      await page.getByRole("button", { name: "Add note" }).click();
      const note = page.getByTestId("thread").locator(".note", { hasText: `Wants a Saturday slot (${size.name}).` });
      await note.waitFor();
      expect(await note.locator("small").textContent()).toContain("Internal note by Test owner");
      await screenshot(page, `inbox-note-${size.name}`, { fullPage: false });
      const after = (await org.request("GET", `/conversations/${omar.conversationId}`)).body;
      expect(after.lastMessageAt).toBe(before.lastMessageAt);
      expect(after.lastMessagePreview).toBe(before.lastMessagePreview);
    }
    expect(errors).toEqual([]);
  });

  it("the call button bridges the agent's own phone, and asks for it when the profile has none", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    const myPhone = randomNumber("646");
    for (const size of sizes) {
      await page.setViewportSize(size);
      expect((await org.request("PUT", "/users/me", { body: { phone: null } })).status).toBe(200);
      await reopen(page, `/conversations/${omar.conversationId}`, "Omar Haddad");
      await page.getByRole("button", { name: "Call Omar Haddad" }).click();
      await page.getByText("Your profile has no phone number.").waitFor();
      await page.getByLabel("Your phone number").fill(myPhone);
      const placed = page.waitForResponse((response) => response.url().endsWith("/calls"));
      await page.getByRole("button", { name: "Save and call" }).click();
      const first = await placed;
      expect(first.request().postDataJSON()).toMatchObject({ leadId: omar.lead.id, connectTo: myPhone });
      expect(first.status()).toBe(202);
      expect(await page.getByTestId("call-answer").textContent()).toBe(
        `Calling your phone (${myPhone}) first: answer it and Omar Haddad is dialed.`,
      );
      expect((await org.request("GET", "/users/me")).body.phone).toBe(myPhone);
      await screenshot(page, `inbox-call-${size.name}`, { fullPage: false });
      // With a phone on the profile the button calls at once.
      const again = page.waitForResponse((response) => response.url().endsWith("/calls"));
      await page.getByRole("button", { name: "Call Omar Haddad" }).click();
      expect((await again).request().postDataJSON()).toMatchObject({ connectTo: myPhone });
      const call = await (await again).json();
      await waitForCall(org, call.id);
      await page.getByTestId("thread").locator(`[data-call-id="${call.id}"]`).waitFor({ timeout: 20_000 });
    }
    expect(errors).toEqual([]);
  });

  it("a new text shows in the inbox and in the open thread without a reload", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, "/conversations", "Conversations");
      const stranger = randomNumber("305");
      await textFrom(stranger, number.phoneNumber, `Hello from a new number (${size.name})`);
      // Polled every 10 s, and the inbound text is processed off the request: a loaded machine needs more than two polls.
      await page.getByTestId("inbox").getByText(`Hello from a new number (${size.name})`).waitFor({ timeout: 45_000 });

      // A conversation of its own (the other tests change Omar's), open while its contact texts again.
      const lena = await texter("Lena", `Park ${size.name}`, randomNumber(), "Is there parking?");
      await reopen(page, `/conversations/${lena.conversationId}`, `Lena Park ${size.name}`);
      await textFrom(lena.phone, number.phoneNumber, `One more thing (${size.name})`);
      await page.getByTestId("thread").getByText(`One more thing (${size.name})`).waitFor({ timeout: 45_000 });
      // Read while it shows: the conversation is not left unread.
      await expect
        .poll(async () => (await org.request("GET", `/conversations/${lena.conversationId}`)).body.unreadCount, {
          timeout: 20_000,
        })
        .toBe(0);
    }
    expect(errors).toEqual([]);
  }, 240_000);

  it("the inbox and a thread: no sideways scroll at 390 px, 44 px touch targets, nothing serious for axe", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    const findings: string[] = [];
    for (const size of sizes) {
      await page.setViewportSize(size);
      for (const [name, route, heading] of [
        ["inbox", "/conversations", "Conversations"],
        ["thread", `/conversations/${nina.conversationId}`, "Nina Patel"],
      ] as const) {
        await reopen(page, route, heading);
        await page
          .locator("details.canned summary")
          .click()
          .catch(() => undefined);
        const width = (await page.evaluate("document.documentElement.scrollWidth")) as number;
        if (width > size.width) findings.push(`${name} at ${size.width} px is ${width} px wide`);
        if (size.name === "phone")
          for (const small of await smallTouchTargets(page)) findings.push(`${name}: ${small}`);
        const axe = await new AxeBuilder({ page }).analyze();
        for (const violation of axe.violations.filter((found) => ["serious", "critical"].includes(found.impact ?? "")))
          findings.push(
            `${name} at ${size.width} px: ${violation.id} ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
          );
        await screenshot(page, `inbox-page-${name}-${size.name}`);
      }
    }
    expect(findings).toEqual([]);
    expect(errors).toEqual([]);
  }, 300_000);
});
