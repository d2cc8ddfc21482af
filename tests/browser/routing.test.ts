import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newSource } from "#tests/helpers/leads";
import { agents, routingSettings, type TestAgent } from "#tests/helpers/routing";
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
let first: TestAgent;
let second: TestAgent;
let sourceId: string;

/** The routing every round starts from: one catch-all rule, the second agent capped, licensed and away. */
async function startingPoint() {
  await routingSettings(org, {
    rules: [{ id: "everyone-else", name: "Everyone else", pool: [org.userIds.owner] }],
    agents: [{ userId: second.id, dailyCap: 5, licensedStates: ["FL"] }],
  });
  const away = await org.request("PUT", `/routing/agents/${second.id}/away`, { body: { away: true } });
  expect(away.status, JSON.stringify(away.body)).toBe(200);
}

const stored = async () => (await org.request("GET", "/routing/settings")).body;
const notice = (page: Page, text: string) => page.getByTestId("notice").getByText(text, { exact: true }).waitFor();
const ruleHeadings = (page: Page) => page.getByTestId("rules").locator("h3").allTextContents();

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  [first, second] = (await agents(org, 2)) as [TestAgent, TestAgent];
  // Agent 1 works office hours (their own profile), shown beside their name.
  const hours = await org.request("PUT", "/users/me", {
    token: first.token,
    body: { timeZone: "America/New_York", workingHours: [{ day: "Mon", start: "09:00", end: "17:00" }] },
  });
  expect(hours.status, JSON.stringify(hours.body)).toBe(200);
  ({ sourceId } = await newSource(org, { name: "Solar leads" }));
  // Two more users and a source through the API on a machine shared with other work.
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the Routing page at a laptop's and a phone's size", () => {
  it("an owner adds, edits, reorders and deletes a rule, changes the settings and a person's limits; bad input is explained beside its field", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await startingPoint();
      await page.setViewportSize(size);
      if (size.name === "desktop") {
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Routing" }).click();
        await page.getByRole("heading", { name: "Routing", exact: true }).waitFor();
      } else {
        // Reopened so the page reads the settings the round starts from.
        await open(page, "/leads", "Leads");
        await open(page, "/routing", "Routing");
      }
      await expect.poll(() => ruleHeadings(page)).toEqual(["1. Everyone else"]);

      // A new rule with a state that is no state and nobody in its pool: the API's words beside both fields.
      await page.getByRole("button", { name: "New rule" }).click();
      const editor = page.getByRole("form", { name: "New rule" });
      const name = `Florida (${size.name})`;
      await editor.getByLabel("Name", { exact: true }).fill(name);
      await editor.getByLabel("States", { exact: true }).fill("Florida");
      await editor.getByRole("button", { name: "Save rule" }).click();
      expect(await errorOf(page, "States")).toBe("Must be a two-letter state code, e.g. FL.");
      const pool = editor.getByRole("group", { name: "Pool: who takes these leads" });
      expect(await pool.locator(".field-error").textContent()).toBeTruthy();
      await screenshot(page, `routing-rule-errors-${size.name}`, { fullPage: false });

      await editor.getByLabel("States", { exact: true }).fill("FL\nga");
      await pool.getByLabel("Agent 1", { exact: true }).check();
      await pool.getByLabel("Agent 2", { exact: true }).check();
      await editor.getByRole("group", { name: "Sources" }).getByLabel("Solar leads").check();
      await editor.getByLabel("Price at least", { exact: true }).fill("25");
      await editor.getByLabel("How the pool shares them", { exact: true }).selectOption("weighted");
      await editor.getByLabel("Weight of Agent 1", { exact: true }).fill("3");
      await noSideways(page, size.width);
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await screenshot(page, `routing-rule-form-${size.name}`);
      await editor.getByRole("button", { name: "Save rule" }).click();
      await notice(page, "Rule added.");
      // Under the catch-all rule it can never be reached, and the list says so.
      await expect.poll(() => ruleHeadings(page)).toEqual(["1. Everyone else", `2. ${name}`]);
      const card = page.getByTestId("rules").locator("li", { hasText: name });
      expect(await card.getByText("Never reached: Everyone else above it takes every lead.").count()).toBe(1);
      expect(await card.getByTestId("conditions").textContent()).toBe(
        "Source Solar leads · State FL or GA · Price at least 25",
      );
      expect(await card.getByTestId("pool").textContent()).toBe("Agent 1 ×3, Agent 2 ×1");
      const added = (await stored()).rules[1];
      expect(added).toMatchObject({
        name,
        conditions: { states: ["FL", "GA"], sourceIds: [sourceId], price: { min: "25" } },
        pool: [first.id, second.id],
        strategy: "weighted",
        weights: { [first.id]: 3 },
      });

      // Edited: a new name, round robin, Agent 2 out of the pool; the rule keeps its id (and its turn order).
      await card.getByRole("button", { name: `Edit ${name}` }).click();
      const edit = page.getByRole("form", { name: `Edit ${name}` });
      const renamed = `Florida and Georgia (${size.name})`;
      await edit.getByLabel("Name", { exact: true }).fill(renamed);
      await edit.getByLabel("How the pool shares them", { exact: true }).selectOption("roundRobin");
      await edit.getByRole("group", { name: "Pool: who takes these leads" }).getByLabel("Agent 2").uncheck();
      await edit.getByRole("button", { name: "Save rule" }).click();
      await notice(page, "Rule saved.");
      await expect.poll(() => ruleHeadings(page)).toEqual(["1. Everyone else", `2. ${renamed}`]);
      expect((await stored()).rules[1]).toMatchObject({
        id: added.id,
        name: renamed,
        pool: [first.id],
        strategy: "roundRobin",
      });

      // Moved above the catch-all: first match wins, so it is reached now.
      await page.getByRole("button", { name: `Move up ${renamed}` }).click();
      await notice(page, "Rule moved up.");
      await expect.poll(() => ruleHeadings(page)).toEqual([`1. ${renamed}`, "2. Everyone else"]);
      expect(await page.getByText("Never reached").count()).toBe(0);
      expect((await stored()).rules.map((rule: { id: string }) => rule.id)).toEqual([added.id, "everyone-else"]);
      await noSideways(page, size.width);
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await screenshot(page, `routing-rules-${size.name}`);

      await page.getByRole("button", { name: `Move down ${renamed}` }).click();
      await notice(page, "Rule moved down.");
      await expect.poll(() => ruleHeadings(page)).toEqual(["1. Everyone else", `2. ${renamed}`]);
      expect((await stored()).rules.map((rule: { id: string }) => rule.id)).toEqual(["everyone-else", added.id]);

      // Deleted after a confirmation; the rule that moves into its place is asked nothing.
      await page.getByRole("button", { name: "Delete Everyone else", exact: true }).click();
      await page.getByRole("button", { name: "Delete Everyone else for good" }).click();
      await notice(page, "Rule deleted.");
      await expect.poll(() => ruleHeadings(page)).toEqual([`1. ${renamed}`]);
      expect(await page.getByRole("button", { name: `Delete ${renamed}`, exact: true }).count()).toBe(1);
      expect((await stored()).rules.map((rule: { id: string }) => rule.id)).toEqual([added.id]);

      // Who sees and claims leads, and the fallback.
      await page.getByLabel("Agents see every lead", { exact: true }).selectOption("false");
      await page.getByLabel("A lead nobody can take", { exact: true }).selectOption("owner");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByTestId("saved").getByText("Saved.").waitFor();
      expect(await stored()).toMatchObject({ agentsSeeAllLeads: false, agentsMayClaim: false, fallback: "owner" });

      // People: availability and hours from their profile, limits from the routing settings.
      const people = page.getByTestId("people");
      const agentOne = people.locator(`[data-user-id="${first.id}"]`);
      const agentTwo = people.locator(`[data-user-id="${second.id}"]`);
      await expect.poll(() => agentTwo.getByTestId("availability").textContent()).toBe("Away · Any time");
      expect(await agentTwo.getByTestId("limits").textContent()).toBe("Licensed in FL · at most 5 a day");
      await expect
        .poll(() => agentOne.getByTestId("availability").textContent())
        .toBe("Available · Mon 09:00–17:00 (America/New_York)");
      expect(await agentOne.getByTestId("limits").textContent()).toBe("Any state · no cap");

      await agentOne.getByRole("button", { name: "Edit limits of Agent 1" }).click();
      const limits = page.getByRole("form", { name: "Limits of Agent 1" });
      await limits.getByLabel("Leads a day at most", { exact: true }).fill("-1");
      await limits.getByRole("button", { name: "Save limits of Agent 1" }).click();
      expect(await errorOf(page, "Leads a day at most")).toBeTruthy();
      await limits.getByLabel("Leads a day at most", { exact: true }).fill("10");
      await limits.getByLabel("Licensed states", { exact: true }).fill("tx");
      await limits.getByRole("button", { name: "Save limits of Agent 1" }).click();
      await agentOne.getByTestId("limits-saved").getByText("Limits saved.").waitFor();
      expect(await agentOne.getByTestId("limits").textContent()).toBe("Licensed in TX · at most 10 a day");
      expect((await stored()).agents).toEqual([
        { userId: second.id, dailyCap: 5, hourlyCap: null, openCap: null, licensedStates: ["FL"] },
        { userId: first.id, dailyCap: 10, hourlyCap: null, openCap: null, licensedStates: ["TX"] },
      ]);

      await agentOne.getByRole("button", { name: "Mark away Agent 1" }).click();
      await expect.poll(() => agentOne.getByTestId("availability").textContent()).toMatch(/^Away/);
      expect((await org.request("GET", `/routing/agents/${first.id}/away`)).body).toMatchObject({ away: true });
      await agentOne.getByRole("button", { name: "Mark back Agent 1" }).click();
      await expect.poll(() => agentOne.getByTestId("availability").textContent()).toMatch(/^Available/);
      expect((await org.request("GET", `/routing/agents/${first.id}/away`)).body).toMatchObject({ away: false });
      await noSideways(page, size.width);
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await screenshot(page, `routing-people-${size.name}`);
    }
    // The two refused saves are logged by the browser as failed requests.
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
    // Two rounds of about twenty saves and reads each through the one-process stack: minutes on a shared machine.
  }, 240_000);

  it("an agent reads the rules, the settings and the people but changes nothing", async () => {
    await startingPoint();
    const { page, errors } = await signedInPage(browser, org.agentToken);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Routing" }).click();
    await page.getByRole("heading", { name: "Routing", exact: true }).waitFor();
    await expect.poll(() => ruleHeadings(page)).toEqual(["1. Everyone else"]);
    await page.getByText("Only owners and admins change routing.").waitFor();
    expect(await page.getByTestId("visibility").textContent()).toBe(
      "Agents see every leadYesAgents may claim unassigned leadsNoA lead nobody can takeLeave it unassigned, flagged",
    );
    await expect
      .poll(() => page.locator(`[data-user-id="${second.id}"]`).getByTestId("availability").textContent())
      .toBe("Away · Any time");
    expect(await page.locator("main").getByRole("button").count()).toBe(0);
    expect(await page.locator("main").getByRole("combobox").count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
