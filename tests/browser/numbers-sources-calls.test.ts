import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { topUp } from "#tests/helpers/billing";
import { callEventsOf, callFrom, waitForCall } from "#tests/helpers/calls";
import { intakeByBody, uniquePhone } from "#tests/helpers/leads";
import { addNumber, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { errorOf, launchBrowser, noSideways, open, screenshot, signedInPage, sizes } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;
/** One number paused for carrier filtering per screen size (each size resumes its own). */
let paused: any[];
let missedCall: any;
let caller: string;

/** Pauses a number the real way: five of its messages filtered by the carrier (simulator scenario 11, error 30007). */
async function filteredUntilPaused(number: any): Promise<void> {
  const sends = await Promise.all(
    ["212", "718", "917", "347", "332"].map((areaCode) =>
      send(org, { to: magic("11", areaCode), body: "Big sale today!", fromPhoneNumberId: number.id }),
    ),
  );
  // Paced at one message a second per number, on a machine shared with other work: a generous wait.
  for (const sent of sends) await waitForMessage(org, sent.body.id, undefined, 90_000);
  // The pause follows the last filtered outcome's commit (the health count and its check run after it): wait for it.
  // (A loop, not expect.poll: this runs in beforeAll.)
  for (const giveUpAt = Date.now() + 30_000; ;) {
    const read = await org.request("GET", `/phone-numbers/${number.id}`);
    if (read.body.paused) return;
    if (Date.now() > giveUpAt) throw new Error(`number ${number.phoneNumber} was not paused`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  paused = [await addNumber(org, "212"), await addNumber(org, "718")];
  await Promise.all(paused.map(filteredUntilPaused));
  // A contact called while nobody takes calls (missed), and we called someone (answered).
  caller = randomNumber("312");
  await callFrom(caller, paused[0].phoneNumber);
  missedCall = await waitForCall(org, (await callEventsOf(org, encodeURIComponent(caller)))[0].id);
  const placed = await org.request("POST", "/calls", { body: { to: magic("20", "646") } });
  await waitForCall(org, placed.body.id);
  // The overview shows what analytics counted when it loads: wait until the stream aggregator counted the missed call
  // (its batching window can outlast the calls above), so the page and the report the test compares it with agree.
  for (const giveUpAt = Date.now() + 30_000; ;) {
    const report = await org.request("GET", "/analytics/my?days=30");
    if (report.body.summary?.missedCalls === 1) break;
    if (Date.now() > giveUpAt)
      throw new Error(`the missed call was not counted: ${JSON.stringify(report.body.summary)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

describe("numbers, sources and calls from the dashboard", () => {
  it("the overview's figures open the list behind them, and a paused number's attention item leads to the Numbers page", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/", "Overview");
      const report = (await org.request("GET", "/analytics/my?days=30")).body;
      await expect.poll(() => page.getByTestId("missed-calls").textContent()).toBe(String(report.summary.missedCalls));
      await page.getByRole("link", { name: `Missed calls: ${report.summary.missedCalls}` }).click();
      await page.getByRole("heading", { name: "Missed calls" }).waitFor();

      await open(page, "/", "Overview");
      for (const [label, heading] of [
        ["Leads", "Leads"],
        ["Unread messages", "Conversations"],
        ["Wallet", "Billing"],
      ]) {
        await page.getByRole("link", { name: new RegExp(`^${label}: `) }).click();
        await page.getByRole("heading", { name: heading, exact: true }).waitFor();
        await open(page, "/", "Overview");
      }

      const attention = page.locator(".attention li", { hasText: `Number ${paused[0].phoneNumber} paused` });
      await attention.getByRole("link", { name: "Review and resume" }).click();
      await page.getByRole("heading", { name: "Numbers", exact: true }).waitFor();
      await page.locator(`[data-number-id="${paused[0].id}"]`).getByTestId("paused").waitFor();
    }
    expect(errors).toEqual([]);
  });

  it("numbers: a search explains a bad area code, a number is bought, renamed, a paused one resumed, and one released after a confirmation", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const [index, size] of sizes.entries()) {
      await page.setViewportSize(size);
      await open(page, "/numbers", "Numbers");
      await page.getByLabel("Area code", { exact: true }).fill("12");
      await page.getByRole("button", { name: "Search numbers" }).click();
      expect(await errorOf(page, "Area code")).toBe("A three-digit North American area code.");

      await page.getByLabel("Area code", { exact: true }).fill("646");
      // Every search offers other numbers, and the first size's offers may still be listed: read this search's.
      const searched = page.waitForResponse(
        (response) => response.url().includes("/available-phone-numbers") && response.status() === 200,
      );
      await page.getByRole("button", { name: "Search numbers" }).click();
      await searched;
      const offer = page.getByTestId("offers").locator("li").first();
      await offer.waitFor();
      const offered = (await offer.getAttribute("data-phone"))!;
      const buying = page.waitForResponse(
        (response) => response.url().endsWith("/phone-numbers") && response.request().method() === "POST",
      );
      await offer.getByRole("button", { name: `Buy ${offered}` }).click();
      const answer = await buying;
      expect(JSON.parse(answer.request().postData()!)).toEqual({ phoneNumber: offered, purchase: true });
      expect(answer.status()).toBe(201);
      const { id } = await answer.json();
      await page.getByTestId("bought").waitFor();
      const card = page.locator(`[data-number-id="${id}"]`);
      await card.waitFor();
      expect((await org.request("GET", `/phone-numbers/${id}`)).body).toMatchObject({ phoneNumber: offered });
      expect(await card.textContent()).toContain("Not on a 10DLC campaign");

      await card.getByRole("button", { name: `Rename ${offered}` }).click();
      await card.getByLabel("Friendly name", { exact: true }).fill("x".repeat(256));
      await card.getByRole("button", { name: "Save name" }).click();
      expect(await errorOf(page, "Friendly name")).toBeTruthy();
      await card.getByLabel("Friendly name", { exact: true }).fill(`Sales (${size.name})`);
      await card.getByRole("button", { name: "Save name" }).click();
      await expect.poll(() => card.locator("h2").textContent()).toBe(`Sales (${size.name})`);
      expect((await org.request("GET", `/phone-numbers/${id}`)).body.friendlyName).toBe(`Sales (${size.name})`);

      // Given to a person as their own (docs/routing.md), then back to the shared pool.
      const whose = () => card.getByLabel(/Whose number/);
      await whose().selectOption(org.userIds.owner);
      await expect
        .poll(async () => (await org.request("GET", `/phone-numbers/${id}`)).body.assignedUserId)
        .toBe(org.userIds.owner);
      await expect.poll(() => whose().inputValue()).toBe(org.userIds.owner);
      await whose().selectOption("");
      await expect.poll(async () => (await org.request("GET", `/phone-numbers/${id}`)).body.assignedUserId).toBeNull();

      const pausedCard = page.locator(`[data-number-id="${paused[index].id}"]`);
      expect(await pausedCard.getByTestId("paused").textContent()).toContain("5 of its last 5 messages were filtered");
      expect(await pausedCard.getByTestId("health").textContent()).toContain("filtered by carriers 5");
      await noSideways(page, size.width);
      await screenshot(page, `numbers-paused-${size.name}`, { fullPage: false });
      await pausedCard.getByRole("button", { name: `Resume ${paused[index].phoneNumber}` }).click();
      await pausedCard.getByTestId("sending").waitFor();
      expect((await org.request("GET", `/phone-numbers/${paused[index].id}`)).body.paused).toBeNull();

      await card.getByRole("button", { name: "Release", exact: true }).click();
      await card.getByRole("button", { name: "Release for good" }).click();
      await expect.poll(async () => (await org.request("GET", `/phone-numbers/${id}`)).status).toBe(404);
      await expect.poll(() => card.count()).toBe(0);
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });

  it("sources: a nameless source is explained, a new one shows its intake URL and key once, the key works, rotates, and the source is switched off", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/sources", "Sources");
      await page.getByRole("button", { name: "Add source" }).click();
      expect(await errorOf(page, "Name")).toBeTruthy();

      const name = `Quotes R Us (${size.name})`;
      await page.getByLabel("Name", { exact: true }).fill(name);
      await page.getByLabel("Price per lead", { exact: true }).fill("12.50");
      await page.getByLabel("Consent", { exact: true }).selectOption("require");
      await page.getByRole("button", { name: "Add source" }).click();
      const apiKey = (await page.getByTestId("new-secret").textContent())!;
      expect(apiKey).toMatch(/^lk_/);
      expect(await page.getByTestId("intake-url").textContent()).toBe(`${baseUrl()}/leads/intake`);
      const sourceId = (await page.getByTestId("source-id").textContent())!;
      expect((await org.request("GET", `/sources/${sourceId}`)).body).toMatchObject({
        name,
        defaultPrice: "12.50",
        consentPolicy: "require",
        enabled: true,
      });
      const posted = await intakeByBody({ sourceId, apiKey }, { FirstName: "Ada", Phone: uniquePhone() });
      expect(posted.status).toBe(201);
      await noSideways(page, size.width);
      await screenshot(page, `sources-new-key-${size.name}`, { fullPage: false });
      await page.getByRole("button", { name: "Done" }).click();
      expect(await page.getByTestId("new-secret").count()).toBe(0);
      expect(await page.locator("main").textContent()).not.toContain(apiKey);

      const card = page.locator(`[data-source-id="${sourceId}"]`);
      await card.getByRole("button", { name: `New key for ${name}` }).click();
      const rotated = (await page.getByTestId("new-secret").textContent())!;
      expect(rotated).toMatch(/^lk_/);
      expect(rotated).not.toBe(apiKey);
      expect((await org.request("GET", `/sources/${sourceId}`)).body.keyRotatedAt).not.toBeNull();
      await page.getByRole("button", { name: "Done" }).click();

      await card.getByLabel(`Consent of ${name}`, { exact: true }).selectOption("allow");
      await expect
        .poll(async () => (await org.request("GET", `/sources/${sourceId}`)).body.consentPolicy)
        .toBe("allow");
      await card.getByLabel(`Takes leads from ${name}`).uncheck();
      await expect.poll(async () => (await org.request("GET", `/sources/${sourceId}`)).body.enabled).toBe(false);
      expect(
        (await intakeByBody({ sourceId, apiKey: rotated }, { FirstName: "Bo", Phone: uniquePhone() })).status,
      ).toBe(401);
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });

  it("calls: the missed call comes first and Call back rings the contact from our number", async () => {
    // The number bought above paid its month's fee prorated to the days left: on the 1st of a month, nearly all of the
    // organization's starting balance. Funded here, so the calls this test places do not depend on the date.
    await topUp(org, "20.00");
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/calls", "Calls");
      const headings = await page.locator("main h2").allTextContents();
      expect(headings.indexOf("Missed calls")).toBeLessThan(headings.indexOf("All calls"));
      const missed = page.getByTestId("missed-calls").locator("tbody tr");
      await expect.poll(() => missed.count()).toBe(1);
      expect(await missed.first().getAttribute("data-call-id")).toBe(missedCall.id);
      expect(await missed.first().getByTestId("call-outcome").textContent()).toBe("Missed");
      expect(await page.getByTestId("all-calls").locator("tbody tr").count()).toBeGreaterThanOrEqual(2);
      await noSideways(page, size.width);
      await screenshot(page, `calls-${size.name}`, { fullPage: false });

      const placed = page.waitForResponse(
        (response) => response.url().endsWith("/calls") && response.request().method() === "POST",
      );
      await missed
        .first()
        .getByRole("button", { name: `Call back ${caller}` })
        .click();
      const call = await (await placed).json();
      expect(call).toMatchObject({ direction: "Outbound", toPhoneNumber: caller });
      expect(await page.getByTestId("call-answer").textContent()).toBe(
        `Calling ${caller} from ${call.fromPhoneNumber}.`,
      );
      expect((await org.request("GET", `/calls/${call.id}`)).status).toBe(200);
    }
    expect(errors).toEqual([]);
  });
});
