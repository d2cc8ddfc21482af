import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Billing from "#core/billing/index";
import { createAutomation, readyToText, waitForRun } from "#tests/helpers/automations";
import { newSource } from "#tests/helpers/leads";
import { createLead, randomNumber } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { launchBrowser, open, screenshot, signedInPage, sizes } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;
let numberId: string;
let sourceId: string;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  numberId = (await readyToText(org)).id;
  sourceId = (await newSource(org, { name: "Form fills" })).sourceId;
});

afterAll(async () => {
  await browser?.close();
});

/** One trigger, condition or action of the form, by the JSON Pointer of its node in the request. */
const node = (page: Page, pointer: string) => page.locator(`[data-node="${pointer}"]`);
const field = (page: Page, pointer: string, label: string) => node(page, pointer).getByLabel(label, { exact: true });

/** Adds a node of `type` with the given button and chooses its type. */
async function add(page: Page, button: string, pointer: string, type: string): Promise<void> {
  await page.getByRole("button", { name: button, exact: true }).click();
  await field(page, pointer, "Type").selectOption(type);
}

/** Saves the form and answers the API's answer to it. */
async function save(page: Page, button: string): Promise<{ status: number; body: any }> {
  const answered = page.waitForResponse(
    (response) =>
      /\/automations(\/[^/]+)?$/.test(new URL(response.url()).pathname) &&
      ["POST", "PUT"].includes(response.request().method()),
  );
  await page.getByRole("button", { name: button }).click();
  const response = await answered;
  return { status: response.status(), body: await response.json() };
}

describe("automations from the dashboard", () => {
  it("a form covers every trigger, condition and action, and the API stores exactly what was filled in", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.setViewportSize(sizes[0]);
    await open(page, "/automations", "Automations");
    await page.getByRole("link", { name: "New automation" }).click();
    await page.getByRole("heading", { name: "New automation" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Everything");

    // Triggers: the form starts with a new-lead trigger; one of every other type is added.
    await field(page, "/triggers/0", "Only from these sources").fill(sourceId);
    await add(page, "Add trigger", "/triggers/1", "MessageReceived");
    await field(page, "/triggers/1", "Only to these numbers").fill(numberId);
    await field(page, "/triggers/1", "Only texts with these keywords").fill("QUOTE\nPRICE");
    await add(page, "Add trigger", "/triggers/2", "MessageFailed");
    await field(page, "/triggers/2", "Undeliverable").check();
    await add(page, "Add trigger", "/triggers/3", "CallMissed");
    await field(page, "/triggers/3", "Only to these numbers").fill(numberId);
    await add(page, "Add trigger", "/triggers/4", "LeadOptedOut");
    await add(page, "Add trigger", "/triggers/5", "Schedule");
    await field(page, "/triggers/5", "Cron expression").fill("0 9 * * 1-5");
    await field(page, "/triggers/5", "Leads created in the last N days").fill("3");
    await field(page, "/triggers/5", "Processed").check();
    await field(page, "/triggers/5", "Leave out opted-out leads").selectOption("true");
    await field(page, "/triggers/5", "At most N leads a firing").fill("50");
    await add(page, "Add trigger", "/triggers/6", "Manual");
    await field(page, "/triggers/6", "Display name").fill("Test button");

    // Two condition groups holding one condition of every type.
    await page.getByRole("button", { name: "Add condition group" }).click();
    const first = "/conditionGroups/0/conditions";
    await field(page, `${first}/0`, "Operator").selectOption("Equals");
    await field(page, `${first}/0`, "Field").fill("metadata.vertical");
    await field(page, `${first}/0`, "Value").fill("auto");
    await page.getByRole("button", { name: "Add condition to group 1" }).click();
    await field(page, `${first}/1`, "Type").selectOption("TimeOfDay");
    await field(page, `${first}/1`, "From").fill("09:00");
    await field(page, `${first}/1`, "Until").fill("17:00");
    await page.getByRole("button", { name: "Add condition to group 1" }).click();
    await field(page, `${first}/2`, "Type").selectOption("Weekday");
    await field(page, `${first}/2`, "Monday").check();
    await field(page, `${first}/2`, "Friday").check();
    await page.getByRole("button", { name: "Add condition group" }).click();
    const second = "/conditionGroups/1/conditions";
    await node(page, "/conditionGroups/1").getByLabel("Passes when").selectOption("any");
    await field(page, `${second}/0`, "Type").selectOption("LeadAge");
    await field(page, `${second}/0`, "Operator").selectOption("GreaterThan");
    await field(page, `${second}/0`, "Seconds since the lead came in").fill("60");
    await page.getByRole("button", { name: "Add condition to group 2" }).click();
    await field(page, `${second}/1`, "Type").selectOption("HasReplied");
    await field(page, `${second}/1`, "Has replied").selectOption("false");
    await field(page, `${second}/1`, "Counting replies since").selectOption("LeadCreated");
    await page.getByRole("button", { name: "Add condition to group 2" }).click();
    await field(page, `${second}/2`, "Type").selectOption("ConsentStatus");
    await field(page, `${second}/2`, "Operator").selectOption("In");
    await field(page, `${second}/2`, "OptedIn").check();
    await field(page, `${second}/2`, "Unknown").check();
    await page.getByRole("button", { name: "Add condition to group 2" }).click();
    await field(page, `${second}/3`, "Type").selectOption("Assignee");
    expect(await field(page, `${second}/3`, "Operator").inputValue()).toBe("Exists");
    await field(page, `${second}/3`, "Operator").selectOption("Equals");
    // The person is chosen by name; the API stores the id.
    const person = field(page, `${second}/3`, "Person");
    await person.selectOption(org.userIds.agent);
    expect(await person.locator("option:checked").textContent()).toContain("Test agent");

    // Actions: the form starts with a text; one of every other type follows, Stop last.
    await field(page, "/actions/0", "Message").fill("Hi {{contact.firstName|there}}");
    await field(page, "/actions/0", "Fallback for empty placeholders").fill("friend");
    await add(page, "Add action", "/actions/1", "SendMms");
    await field(page, "/actions/1", "Picture URLs").fill("https://example.com/a.png");
    await add(page, "Add action", "/actions/2", "Wait");
    await field(page, "/actions/2", "Seconds").fill("600");
    await add(page, "Add action", "/actions/3", "HttpRequest");
    await field(page, "/actions/3", "URL").fill("https://crm.example.com/hook");
    await field(page, "/actions/3", "Method").selectOption("PUT");
    await field(page, "/actions/3", "Headers").fill("X-Source: dashboard");
    await field(page, "/actions/3", "Body").fill('{"id":"{{lead.id}}"}');
    await field(page, "/actions/3", "Signing secret").fill("whsec_0123456789abcdef");
    await field(page, "/actions/3", "Timeout (ms)").fill("5000");
    await field(page, "/actions/3", "Retries").fill("2");
    await add(page, "Add action", "/actions/4", "UpdateLead");
    await field(page, "/actions/4", "Fields to set").fill("metadata.product = auto\ncustomer.creditScore = 700");
    await add(page, "Add action", "/actions/5", "AddToSuppression");
    await field(page, "/actions/5", "Reason").fill("Asked by phone");
    await add(page, "Add action", "/actions/6", "PlaceCall");
    await field(page, "/actions/6", "Bridge to phone").fill("+14155550123");
    await field(page, "/actions/6", "Ring for (seconds)").fill("20");
    await add(page, "Add action", "/actions/7", "AssignLead");
    expect(await field(page, "/actions/7", "Assign to").locator("option:checked").textContent()).toBe(
      "By the routing rules",
    );
    await add(page, "Add action", "/actions/8", "AssignLead");
    await field(page, "/actions/8", "Assign to").selectOption(org.userIds.admin);
    await add(page, "Add action", "/actions/9", "Stop");
    await screenshot(page, "automation-form-desktop");

    const created = await save(page, "Create automation");
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await page.getByRole("heading", { name: "Automations" }).waitFor();
    const stored = (await org.request("GET", `/automations/${created.body.id}`)).body;
    expect(stored.triggers.map((trigger: any) => [trigger.type, trigger.settings])).toEqual([
      ["LeadCreated", { sourceIds: [sourceId] }],
      ["MessageReceived", { phoneNumberIds: [numberId], keywords: ["QUOTE", "PRICE"] }],
      ["MessageFailed", { statuses: ["Undeliverable"] }],
      ["CallMissed", { phoneNumberIds: [numberId] }],
      ["LeadOptedOut", {}],
      [
        "Schedule",
        {
          cron: "0 9 * * 1-5",
          audience: { createdWithinDays: 3, processingStatus: ["Processed"], excludeOptedOut: true, maxLeads: 50 },
        },
      ],
      ["Manual", {}],
    ]);
    expect(stored.triggers[6].displayName).toBe("Test button");
    const conditions = stored.conditionGroups.map((group: any) => [
      group.mode,
      group.conditions.map((condition: any) => [condition.type, condition.operator, condition.settings]),
    ]);
    expect(conditions).toEqual([
      [
        "all",
        [
          ["LeadField", "Equals", { field: "metadata.vertical", value: "auto" }],
          ["TimeOfDay", "Between", { start: "09:00", end: "17:00" }],
          ["Weekday", "In", { days: ["Monday", "Friday"] }],
        ],
      ],
      [
        "any",
        [
          ["LeadAge", "GreaterThan", { seconds: 60 }],
          ["HasReplied", "Equals", { value: false, since: "LeadCreated" }],
          ["ConsentStatus", "In", { values: ["OptedIn", "Unknown"] }],
          ["Assignee", "Equals", { userId: org.userIds.agent }],
        ],
      ],
    ]);
    expect(stored.actions.map((action: any) => [action.type, action.settings])).toEqual([
      ["SendSms", { body: "Hi {{contact.firstName|there}}", fallback: "friend" }],
      ["SendMms", { mediaUrls: ["https://example.com/a.png"], fallback: "" }],
      ["Wait", { durationSeconds: 600 }],
      [
        "HttpRequest",
        {
          url: "https://crm.example.com/hook",
          method: "PUT",
          headers: { "X-Source": "dashboard" },
          body: '{"id":"{{lead.id}}"}',
          secret: expect.any(String),
          timeoutMs: 5000,
          maxRetries: 2,
        },
      ],
      ["UpdateLead", { fields: { "metadata.product": "auto", "customer.creditScore": 700 } }],
      ["AddToSuppression", { reason: "Asked by phone" }],
      ["PlaceCall", { connectTo: "+14155550123", timeoutSeconds: 20 }],
      // Nobody chosen: the organization's routing rules pick the assignee.
      ["AssignLead", {}],
      ["AssignLead", { userId: org.userIds.admin }],
      ["Stop", {}],
    ]);
    // The flow the form drew: every trigger into the first group, the groups in turn, then the actions in order.
    const ids = (list: any[]) => list.map((item) => item.id);
    const steps = [...ids(stored.conditionGroups), ...ids(stored.actions)];
    expect(stored.connections.map((connection: any) => [connection.sourceNodeId, connection.targetNodeId])).toEqual([
      ...ids(stored.triggers).map((trigger) => [trigger, steps[0]]),
      ...steps.slice(1).map((step, index) => [steps[index], step]),
    ]);
    expect(errors).toEqual([]);
  });

  it("keeps a list typed the moment its input appears, before the browser paints again", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await open(page, "/automations/new", "New automation");
    await page.getByLabel("Name", { exact: true }).fill("Typed at once");
    await field(page, "/actions/0", "Message").fill("Hello");
    await page.getByRole("button", { name: "Add action", exact: true }).click();
    // Inside the page, with no round trip to the test between choosing the type and typing: the typing lands before
    // the next frame, where an effect run after painting used to put the empty text back over it (lost in CI once).
    await node(page, "/actions/1").evaluate(async (action) => {
      const type = action.querySelector("select")!;
      type.value = "UpdateLead";
      type.dispatchEvent(new Event("change", { bubbles: true }));
      await Promise.resolve();
      const fields = action.querySelector("textarea")!;
      fields.focus();
      fields.value = "metadata.product = auto";
      fields.dispatchEvent(new Event("input", { bubbles: true }));
      // Past the next frame: Preact runs effects after it, or after a short timeout (35 ms) where no frame comes.
      await new Promise((painted) => setTimeout(painted, 150));
      // Leaving the input, as the browser reports it after a person's edit (a script's edit gets no change event).
      fields.dispatchEvent(new Event("change", { bubbles: true }));
    });
    expect(await field(page, "/actions/1", "Fields to set").inputValue()).toBe("metadata.product = auto");
    const created = await save(page, "Create automation");
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const stored = (await org.request("GET", `/automations/${created.body.id}`)).body;
    expect(stored.actions[1].settings).toEqual({ fields: { "metadata.product": "auto" } });
    expect(errors).toEqual([]);
  });

  it("the API's validation errors appear beside the input they are about, at both sizes", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/automations/new", "New automation");
      await field(page, "/actions/0", "Type").selectOption("Wait");
      await field(page, "/actions/0", "Seconds").fill("60");
      await field(page, "/actions/0", "Until time of day").fill("09:30");
      await add(page, "Add action", "/actions/1", "HttpRequest");
      await field(page, "/actions/1", "URL").fill("not a url");
      const refused = await save(page, "Create automation");
      expect(refused.status).toBe(400);
      const pointers = refused.body.errors.map((error: any) => error.pointer);
      expect(pointers).toEqual(expect.arrayContaining(["/name", "/actions/0/settings", "/actions/1/settings/url"]));

      // Beside each input: its own words, and the input is described by them.
      const name = page.getByLabel("Name", { exact: true });
      expect(await name.getAttribute("aria-invalid")).toBe("true");
      const nameError = page.locator(`#${(await name.getAttribute("aria-describedby"))!}`);
      expect(await nameError.textContent()).toBe(
        refused.body.errors.find((error: any) => error.pointer === "/name").detail,
      );
      const url = field(page, "/actions/1", "URL");
      expect(await page.locator(`#${(await url.getAttribute("aria-describedby"))!}`).textContent()).toContain("URL");
      expect(await node(page, "/actions/0").locator(":scope > .field-error").textContent()).toContain(
        'Give exactly one of "durationSeconds" or "untilTime"',
      );
      // And all of them above the form, placed in words.
      expect(await page.getByTestId("problem").textContent()).toContain("Action 2: Call a webhook, url:");
      await screenshot(page, `automation-errors-${size.name}`, { fullPage: false });
      expect((await page.evaluate("document.documentElement.scrollWidth")) as number).toBeLessThanOrEqual(size.width);

      await name.fill(`Fixed at ${size.name}`);
      await field(page, "/actions/0", "Until time of day").fill("");
      await field(page, "/actions/1", "URL").fill("https://crm.example.com/hook");
      const created = await save(page, "Create automation");
      expect(created.status).toBe(201);
      await page.getByRole("link", { name: `Fixed at ${size.name}`, exact: true }).waitFor();
    }
    // The browser logs each refused save as a failed resource; nothing else may go wrong.
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });

  it("edits, switches on and off, and deletes an automation", async () => {
    const automation = await createAutomation(org, {
      name: "Edit me",
      enabled: false,
      triggers: [{ id: "t", type: "Manual" }],
      actions: [{ id: "hello", type: "SendSms", settings: { body: "Hello" } }],
      connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "hello" }],
    });
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.setViewportSize(sizes[1]);
    await open(page, "/automations", "Automations");
    await page.getByRole("link", { name: "Edit Edit me" }).click();
    await page.getByRole("heading", { name: "Edit Edit me" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("Edited");
    await field(page, "/actions/0", "Message").fill("Hello again");
    expect((await save(page, "Save changes")).status).toBe(200);
    await page.getByRole("heading", { name: "Automations" }).waitFor();
    const edited = (await org.request("GET", `/automations/${automation.id}`)).body;
    expect(edited).toMatchObject({
      name: "Edited",
      version: automation.version + 1,
      enabled: false,
      actions: [{ settings: { body: "Hello again" } }],
    });

    const toggled = page.waitForResponse((response) => response.request().method() === "PUT");
    await page.getByLabel("Enable Edited").check();
    expect((await toggled).status()).toBe(200);
    await expect.poll(async () => (await org.request("GET", `/automations/${automation.id}`)).body.enabled).toBe(true);

    await page.getByRole("link", { name: "Edit Edited" }).click();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("button", { name: "Delete for good" }).click();
    await page.getByRole("heading", { name: "Automations" }).waitFor();
    await expect.poll(async () => (await org.request("GET", `/automations/${automation.id}`)).status).toBe(404);
    expect(await page.getByRole("link", { name: "Edited", exact: true }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("draws a read-only graph: steps in rows, a split by weight, a loop back through a Wait, at both sizes", async () => {
    // t → (3:1) welcome | reminder; welcome → wait → welcome (a loop through the Wait); reminder → stop.
    const automation = await createAutomation(org, {
      name: "Graph me",
      enabled: false,
      triggers: [{ id: "t", type: "Manual" }],
      actions: [
        { id: "welcome", type: "SendSms", settings: { body: "Welcome" } },
        { id: "reminder", type: "SendSms", settings: { body: "Reminder" } },
        { id: "wait", type: "Wait", settings: { durationSeconds: 3600 } },
        { id: "stop", type: "Stop", settings: {} },
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "welcome", weight: 3 },
        { id: "c2", sourceNodeId: "t", targetNodeId: "reminder", weight: 1 },
        { id: "c3", sourceNodeId: "welcome", targetNodeId: "wait" },
        { id: "c4", sourceNodeId: "wait", targetNodeId: "welcome" },
        { id: "c5", sourceNodeId: "reminder", targetNodeId: "stop" },
      ],
    });
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/automations", "Automations");
      await page.getByRole("link", { name: "Edit Graph me" }).click();
      await page.getByRole("heading", { name: "Edit Graph me" }).waitFor();
      const graph = page.getByTestId("graph");
      const rowsOfSteps = await graph
        .locator(".graph-rows > li")
        .evaluateAll((rows) =>
          rows.map((row) => [...row.querySelectorAll("[data-step]")].map((step) => step.getAttribute("data-step"))),
        );
      expect(rowsOfSteps).toEqual([["t"], ["welcome", "reminder"], ["wait", "stop"]]);
      const step = (id: string) => graph.locator(`[data-step="${id}"]`);
      expect(await step("t").locator(".graph-next li").allTextContents()).toEqual([
        "→ Action 1: Send a text (weight 3)",
        "→ Action 2: Send a text (weight 1)",
      ]);
      expect(await step("wait").locator(".graph-next li").allTextContents()).toEqual([
        "↩ back to Action 1: Send a text",
      ]);
      expect(await step("stop").textContent()).toContain("ends here");
      // At a laptop's width, one arrow per link, the loop's dashed; on a phone the rows wrap and the words alone say it.
      const arrows = size.name === "desktop" ? 5 : 0;
      await expect.poll(() => graph.locator("svg line").count()).toBe(arrows);
      expect(await graph.locator("svg line.loop").count()).toBe(arrows ? 1 : 0);
      expect((await page.evaluate("document.documentElement.scrollWidth")) as number).toBeLessThanOrEqual(size.width);
      await graph.scrollIntoViewIfNeeded();
      await screenshot(page, `automation-graph-${size.name}`, { fullPage: false });
    }
    expect((await org.request("GET", `/automations/${automation.id}`)).body.version).toBe(automation.version);
    expect(errors).toEqual([]);
  });

  it("the run history names the lead, shows each step, and retries a failed run", async () => {
    const automation = await createAutomation(org, {
      name: "Paid text",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [{ id: "hello", type: "SendSms", settings: { body: "Hello" } }],
      connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "hello" }],
    });
    const phone = randomNumber("212");
    const lead = await createLead(org, phone);
    await Billing.setSuspended(org.organizationId, true);
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.id } });
    const failed = await waitForRun(org, automation.id, started.body.id);
    expect(failed.status).toBe("Failed");
    await Billing.setSuspended(org.organizationId, false);

    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/automations", "Automations");
      await open(page, `/automations/${automation.id}`, "Run history");
      const run = page.locator(`[data-run-id="${failed.id}"]`);
      await expect.poll(() => run.getByTestId("run-lead").textContent()).toBe("Dana");
      expect(await run.getByTestId("run-status").textContent()).toBe(size.name === "desktop" ? "Failed" : "Succeeded");
      await run.locator("summary").click();
      const steps = run.getByTestId("steps").locator("li");
      if (size.name === "desktop") {
        expect(await steps.allTextContents()).toEqual([
          expect.stringContaining("Started by hand (t): Succeeded"),
          expect.stringContaining("Send a text (hello): Blocked"),
        ]);
        await screenshot(page, "automation-runs-failed-desktop", { fullPage: false });
        await run.getByRole("button", { name: /^Retry/ }).click();
        await waitForRun(org, automation.id, failed.id, (latest) => latest.status === "Succeeded");
      } else {
        expect(await steps.count()).toBe(3);
        expect(await steps.nth(2).textContent()).toContain("Send a text (hello): Succeeded");
        expect(await steps.nth(2).textContent()).toContain("messageId");
        expect(await run.getByRole("button", { name: /^Retry/ }).count()).toBe(0);
      }
    }
    expect(errors).toEqual([]);
  });
});
