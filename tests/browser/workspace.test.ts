import { AxeBuilder } from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chain, createAutomation } from "#tests/helpers/automations";
import { intakeByBody, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { addNumber, send, sleep, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { routingSettings } from "#tests/helpers/routing";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { launchBrowser, open, screenshot, signedInPage, sizes, smallTouchTargets } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;
let lead: any;
let conversation: any;
let automation: any;
let delivered: any;
let unread: { lead: any; conversation: any };

/** Every page of the app, by the hash route that opens it and a heading it shows once loaded. */
function pages(): { name: string; route: string; heading: string | RegExp }[] {
  return [
    { name: "overview", route: "/", heading: "Overview" },
    { name: "leads", route: "/leads", heading: "Leads" },
    { name: "lead", route: `/leads/${lead.id}`, heading: "Timeline" },
    { name: "conversations", route: "/conversations", heading: "Conversations" },
    { name: "thread", route: `/conversations/${conversation.id}`, heading: /Rosa Díaz/ },
    { name: "automations", route: "/automations", heading: "Automations" },
    { name: "automation-runs", route: `/automations/${automation.id}`, heading: "Run history" },
    { name: "automation-new", route: "/automations/new", heading: "New automation" },
    { name: "automation-edit", route: `/automations/${automation.id}/edit`, heading: "Edit Welcome text" },
    { name: "billing", route: "/billing", heading: "Billing" },
    { name: "team", route: "/team", heading: "Team" },
    { name: "routing", route: "/routing", heading: "Routing" },
    { name: "api-keys", route: "/api-keys", heading: "API keys" },
    { name: "audit-log", route: "/audit-log", heading: "Audit log" },
    { name: "settings", route: "/settings", heading: "Settings" },
    { name: "webhooks", route: "/webhooks", heading: "Webhooks" },
    { name: "suppressions", route: "/suppressions", heading: "Suppressions" },
    { name: "numbers", route: "/numbers", heading: "Numbers" },
    { name: "sources", route: "/sources", heading: "Sources" },
    { name: "calls", route: "/calls", heading: "Calls" },
    { name: "registration", route: "/registration", heading: "10DLC registration" },
    { name: "profile", route: "/profile", heading: "Your profile" },
  ];
}

/** Opens a page anew, even when it is the one showing (setting the same hash would keep the old component). */
async function reopen(page: Page, route: string, heading: string | RegExp): Promise<void> {
  await open(page, "/leads", "Leads");
  await open(page, route, heading);
}

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  const number = await addNumber(org);
  const source = await newSource(org, { name: "Quotes R Us" });
  /** A lead from the source who texted us: the lead and the conversation the text opened. */
  async function texter(firstName: string, lastName: string, text: string, extra: Record<string, string> = {}) {
    const intake = await intakeByBody(source, {
      FirstName: firstName,
      LastName: lastName,
      Phone: uniquePhone(),
      ...extra,
    });
    if (intake.status >= 300) throw new Error(`intake: ${intake.status} ${JSON.stringify(intake.body)}`);
    const texted = await waitForLead(org, intake.body.id);
    if (firstName === "Rosa")
      delivered = await waitForMessage(
        org,
        (await send(org, { leadId: texted.id, body: "Hi Rosa, here is your quote." })).body.id,
        undefined,
        // The carrier simulator's receipt comes later on a machine shared with other work.
        60_000,
      );
    await textFrom(texted.contact.phone.number, number.phoneNumber, text);
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      const listed = await org.request("POST", "/conversations/all/my", {
        body: {
          filters: [
            { field: "leadId", value: texted.id },
            { field: "unread", value: true },
          ],
        },
      });
      if (listed.body.items[0]) return { lead: texted, conversation: listed.body.items[0] };
      await sleep(150);
    }
    throw new Error(`${firstName}'s text never opened a conversation`);
  }
  ({ lead, conversation } = await texter("Rosa", "Díaz", "Is the quote still valid?", {
    Email: "rosa@example.com",
    UtmSource: "google",
  }));
  unread = await texter("Sam", "Lee", "Can you call me after five?");
  automation = await createAutomation(
    org,
    chain({ type: "LeadCreated" }, [{ id: "hello", type: "SendSms", settings: { body: "Hi there" } }], {
      name: "Welcome text",
    }),
  );
  // Rules for the Routing page to show, set once the leads above are in (they stay unassigned, as the pages show them).
  await routingSettings(org, {
    rules: [
      {
        name: "Paid search",
        conditions: { utmSources: ["google"], utmMediums: ["cpc"] },
        pool: [org.userIds.agent, org.userIds.admin],
        strategy: "weighted",
        weights: { [org.userIds.agent]: 3 },
      },
      { name: "Everyone else", pool: [org.userIds.agent, org.userIds.admin, org.userIds.owner] },
    ],
    agents: [{ userId: org.userIds.agent, dailyCap: 25, licensedStates: ["FL", "GA"] }],
  });
  // Two leads through intake and texts on a machine shared with other work: more than the default minute.
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

describe("the workspace at a laptop's and a phone's size", () => {
  it("no page scrolls sideways on a phone, every control is a 44 px touch target, and axe finds nothing serious", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    const findings: string[] = [];
    for (const size of sizes) {
      await page.setViewportSize(size);
      for (const { name, route, heading } of pages()) {
        await open(page, route, heading);
        const scrollWidth = (await page.evaluate("document.documentElement.scrollWidth")) as number;
        if (scrollWidth > size.width) findings.push(`${name} at ${size.width} px is ${scrollWidth} px wide`);
        if (size.name === "phone")
          for (const small of await smallTouchTargets(page)) findings.push(`${name}: ${small}`);
        const axe = await new AxeBuilder({ page }).analyze();
        if (axe.passes.length === 0) findings.push(`${name}: axe checked nothing`);
        for (const violation of axe.violations.filter(
          (found) => found.impact === "serious" || found.impact === "critical",
        ))
          findings.push(
            `${name} at ${size.width} px: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
          );
        await screenshot(page, `${name}-${size.name}`, { fullPage: false });
      }
    }
    expect(findings).toEqual([]);
    // The 10DLC page reads the brand, and an organization without one is answered 404 (the browser logs it).
    expect(errors.filter((error) => !error.includes("status of 404"))).toEqual([]);
    // Twenty-two pages, two sizes, an axe run each: minutes on a shared machine.
  }, 600_000);

  it("on a phone the navigation folds behind a Menu button that opens it", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.setViewportSize(sizes[1]);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const menu = page.getByRole("button", { name: "Menu" });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await page.getByRole("link", { name: "Leads", exact: true }).isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Billing" }).click();
    await page.getByRole("heading", { name: "Billing" }).waitFor();
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    await page.setViewportSize(sizes[0]);
    expect(await menu.isVisible()).toBe(false);
    expect(await page.getByRole("link", { name: "Leads", exact: true }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
  });

  it("the keyboard alone reaches every section through the navigation", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.setViewportSize(sizes[0]);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    // The first Tab lands on the skip link; Enter moves focus into the page.
    await page.keyboard.press("Tab");
    expect(await page.evaluate("document.activeElement.textContent")).toBe("Skip to content");
    await page.keyboard.press("Enter");
    expect(await page.evaluate("document.activeElement.id")).toBe("content");
    for (const [label, heading] of [
      ["Leads", "Leads"],
      ["Conversations", "Conversations"],
      ["Billing", "Billing"],
      ["Audit log", "Audit log"],
    ]) {
      // From the skip link, the first stop of the page: the navigation follows it, whatever the page below holds
      // (the Overview's figures are links too, and a blurred focus may restart from inside the page).
      await page.getByRole("link", { name: "Skip to content" }).focus();
      let reached = false;
      for (let press = 0; press < 20 && !reached; press++) {
        await page.keyboard.press("Tab");
        reached = (await page.evaluate("document.activeElement.textContent")) === label;
      }
      expect(reached, `Tab reaches ${label}`).toBe(true);
      await page.keyboard.press("Enter");
      await page.getByRole("heading", { name: heading, exact: true }).waitFor();
    }
    expect(errors).toEqual([]);
  });

  it("the lead page reads in words: source name, consent, labelled details, and one timeline row per message", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, `/leads/${lead.id}`, "Timeline");
      await expect.poll(() => page.getByTestId("source").textContent()).toBe("Quotes R Us");
      const stored = (await org.request("GET", `/leads/${lead.id}`)).body;
      expect(await page.getByTestId("consent").textContent()).toBe(
        stored.metadata.smsOptedOut ? "Opted out: texts are blocked" : stored.metadata.smsConsentStatus,
      );
      expect(await page.getByTestId("details").textContent()).toContain("UTM sourcegoogle");
      const text = (await page.locator("main").textContent())!;
      for (const key of ["smsConsentPhoneNumber", "utmSource", "businessId", "MessageDelivered"])
        expect(text, key).not.toContain(key);

      // One row per message whatever the number of its status events, showing the newest status; the steps fold out.
      const events = (
        await org.request("POST", "/events/all/my", {
          body: { pageSize: 100, filters: [{ field: "leadId", value: lead.id }] },
        })
      ).body.items;
      const sentEvents = events.filter((event: any) => event.relatedEntityId === delivered.id);
      expect(sentEvents.length).toBeGreaterThan(1);
      const rows = page.getByTestId("timeline").locator(":scope > li");
      const entities = new Set(
        events.map((event: any) =>
          ["Message", "Call"].includes(event.relatedEntityType)
            ? `${event.relatedEntityType}:${event.relatedEntityId}`
            : event.id,
        ),
      );
      expect(await rows.count()).toBe(entities.size);
      const sent = page.locator(`[data-entity="Message:${delivered.id}"]`);
      expect(await sent.getByTestId("row-status").textContent()).toBe("Delivered");
      expect(await sent.locator(".steps li").first().isVisible()).toBe(false);
      await sent.locator("summary").click();
      expect(await sent.locator(".steps li").count()).toBe(sentEvents.length);
      expect(await sent.locator(".steps li").first().isVisible()).toBe(true);
      await screenshot(page, `workspace-lead-expanded-${size.name}`);
    }
    expect(errors).toEqual([]);
  });

  it("the inbox names each lead, previews the last message, narrows to unread, and finds a name or a number", async () => {
    await org.request("POST", `/conversations/${conversation.id}/read`);
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    const rows = () => page.getByTestId("inbox").locator("li");
    const names = () => page.getByTestId("inbox").locator(".who strong").allTextContents();
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, "/conversations", "Conversations");
      const sam = page.locator(`[data-conversation-id="${unread.conversation.id}"]`);
      await expect.poll(() => sam.locator(".who strong").textContent()).toBe("Sam Lee");
      expect(await sam.locator(".who small").textContent()).toBe(unread.lead.contact.phone.number);
      expect(await sam.locator(".preview").textContent()).toBe("Can you call me after five?");
      expect(await sam.locator(".unread-count").textContent()).toBe("1 unread");
      const rosa = page.locator(`[data-conversation-id="${conversation.id}"]`);
      expect(await rosa.locator(".who strong").textContent()).toBe("Rosa Díaz");
      expect(await rosa.locator(".unread-count").count()).toBe(0);
      expect(await names()).toEqual(["Sam Lee", "Rosa Díaz"]);
      await screenshot(page, `workspace-inbox-${size.name}`, { fullPage: false });

      await page.getByLabel("Show").selectOption("unread");
      await expect.poll(names).toEqual(["Sam Lee"]);
      await page.getByLabel("Show").selectOption("all");
      await expect.poll(names).toEqual(["Sam Lee", "Rosa Díaz"]);

      const search = page.getByLabel("Search by name or number");
      await search.fill("rosa");
      await expect.poll(names).toEqual(["Rosa Díaz"]);
      // A number as a person types it: spaces and brackets, the last seven digits.
      const digits = unread.lead.contact.phone.number.slice(-7);
      await search.fill(`${digits.slice(0, 3)} ${digits.slice(3)}`);
      await expect.poll(names).toEqual(["Sam Lee"]);
      await search.fill("nobody by this name");
      await page.getByRole("status").getByText("No conversation matches.").waitFor();
      expect(await rows().count()).toBe(0);
      await search.fill("");
      await expect.poll(names).toEqual(["Sam Lee", "Rosa Díaz"]);
    }
    expect(errors).toEqual([]);
  });

  it("the lead page sends a text to the lead, and the timeline gains one row for it", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await reopen(page, `/leads/${unread.lead.id}`, "Timeline");
      const sent = page.waitForResponse(
        (response) => response.url().endsWith("/messages") && response.request().method() === "POST",
      );
      await page.getByLabel("Text message").fill(`See you at three (${size.name}).`);
      await page.getByRole("button", { name: "Send" }).click();
      const message = await (await sent).json();
      expect(message.leadId).toBe(unread.lead.id);
      expect(message.body).toBe(`See you at three (${size.name}).`);
      await page.getByTestId("send-answer").waitFor();
      const row = page.locator(`[data-entity="Message:${message.id}"]`);
      await row.waitFor();
      expect((await waitForMessage(org, message.id)).status).toBe("Delivered");
      await reopen(page, `/leads/${unread.lead.id}`, "Timeline");
      await expect.poll(() => row.getByTestId("row-status").textContent()).toBe("Delivered");
      expect(await page.locator(`[data-entity="Message:${message.id}"]`).count()).toBe(1);
      await screenshot(page, `workspace-lead-texted-${size.name}`, { fullPage: false });
    }
    expect(errors).toEqual([]);
  });
});
