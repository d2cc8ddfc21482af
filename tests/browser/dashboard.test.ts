import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { intakeByBody, newSource, uniquePhone, waitForLead, type TestSource } from "#tests/helpers/leads";
import { addNumber, send, sleep, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { chain, createAutomation } from "#tests/helpers/automations";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { launchBrowser, screenshot, signedInPage } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;
let report: any;
let number: { id: string; phoneNumber: string };
let texter: any;

async function sourcedLead(source: TestSource, firstName: string) {
  const response = await intakeByBody(source, { FirstName: firstName, Phone: uniquePhone() });
  if (response.status >= 300) throw new Error(`intake: ${response.status} ${JSON.stringify(response.body)}`);
  return waitForLead(org, response.body.id);
}

/**
 * The report the overview asks for by default (last 30 days), once the rollups show every seeded fact (counted off
 * the table's stream: on a busy machine that hop alone can take several seconds).
 */
async function reportWhen(done: (report: any) => boolean): Promise<any> {
  const deadline = Date.now() + 40_000;
  let last: any;
  while (Date.now() < deadline) {
    last = (await org.request("GET", "/analytics/my?days=30")).body;
    if (done(last)) return last;
    await sleep(150);
  }
  throw new Error(`analytics never matched: ${JSON.stringify(last?.summary)}`);
}

/** "4.7600" → "$4.76", "-0.0079" → "-$0.0079": written out by hand here, not with the app's formatter. */
function dollars(amount: string): string {
  const [whole, fraction = ""] = amount.replace("-", "").split(".");
  const digits = fraction.replace(/0+$/, "").padEnd(2, "0");
  return `${amount.startsWith("-") ? "-" : ""}$${Number(whole).toLocaleString("en-US")}.${digits}`;
}

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  number = await addNumber(org);
  const quotes = await newSource(org, { name: "Quotes R Us", defaultPrice: "12.50" });
  const forms = await newSource(org, { name: "Web forms" });
  const leads = [];
  for (let index = 0; index < 7; index++) leads.push(await sourcedLead(quotes, `Quote${index}`));
  for (let index = 0; index < 5; index++) leads.push(await sourcedLead(forms, `Form${index}`));
  texter = leads[11];
  for (const lead of leads.slice(0, 3))
    await waitForMessage(org, (await send(org, { leadId: lead.id, body: "Hi, here is your quote." })).body.id);
  report = await reportWhen(
    (r) => r.leadTrend.total === 12 && r.responseMetrics.respondedLeads === 3 && r.summary.smsSent === 3,
  );
});

afterAll(async () => {
  await browser?.close();
});

describe("dashboard in Chromium", () => {
  it("overview renders every chart and shows the API's numbers", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByTestId("lead-total").waitFor();
    expect(await page.getByTestId("lead-total").textContent()).toBe(String(report.leadTrend.total));
    expect(await page.getByTestId("median-response").textContent()).toBe(`${report.responseMetrics.medianMinutes} min`);
    for (const title of ["Lead trend (day)", "Average response minutes", "Communication usage"]) {
      const chart = page.getByRole("figure", { name: title });
      await expect.poll(() => chart.locator("canvas").count()).toBe(1);
      // The text alternative: one table row per bucket of the API's series.
      expect(await chart.locator("details tbody tr").count()).toBe(report.leadTrend.points.length);
    }
    const rows = await page
      .getByTestId("sources")
      .locator("tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => [
          tr.querySelector("th")!.textContent,
          tr.querySelectorAll("td")[0]!.textContent,
          tr.querySelectorAll("td")[1]!.textContent,
        ]),
      );
    expect(rows).toEqual(
      report.leadSources.map((source: any) => [source.source, String(source.leads), `${source.percent}%`]),
    );
    const leadTrendTable = page.getByRole("figure", { name: "Lead trend (day)" }).locator("details tbody td");
    const trendSum = (await leadTrendTable.allTextContents()).reduce((sum, value) => sum + Number(value), 0);
    expect(trendSum).toBe(report.leadTrend.total);
    await screenshot(page, "overview");
    expect(errors).toEqual([]);
  });

  it("leads list pages to the end with the API's continuation tokens", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    const sentTokens: (string | null)[] = [];
    const answeredTokens: (string | null)[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/leads/all/my"))
        sentTokens.push(JSON.parse(request.postData() ?? "{}").continuationToken ?? null);
    });
    page.on("response", async (response) => {
      if (response.url().endsWith("/leads/all/my"))
        answeredTokens.push((await response.json()).continuationToken ?? null);
    });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Leads" }).click();
    await page.getByLabel("Page size").selectOption("10");
    await expect.poll(() => page.getByRole("status").textContent()).toBe("Page 1 · 10 shown · 12 leads in all");
    const seen: string[] = [];
    seen.push(
      ...(await page
        .getByTestId("leads")
        .locator("tbody tr")
        .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-lead-id")!))),
    );
    await screenshot(page, "leads");
    const next = page.getByRole("button", { name: "Next" });
    while (await next.isEnabled()) {
      const pageNumber = seen.length / 10 + 1;
      await next.click();
      await expect.poll(() => page.getByRole("status").textContent()).toMatch(new RegExp(`^Page ${pageNumber} · `));
      seen.push(
        ...(await page
          .getByTestId("leads")
          .locator("tbody tr")
          .evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-lead-id")!))),
      );
    }
    const all = await org.request("POST", "/leads/all/my", {
      body: { pageSize: 100, orderBy: [{ field: "createdAt", direction: "desc" }] },
    });
    expect(seen).toEqual(all.body.items.map((lead: any) => lead.id));
    // Every token the app sent back is one the API answered on the page before (never one of its own).
    const nextTokens = sentTokens.filter((token) => token !== null);
    expect(nextTokens.length).toBe(1);
    expect(nextTokens.every((token) => answeredTokens.includes(token))).toBe(true);

    await page.getByTestId("leads").locator("tbody a").first().click();
    await page.getByRole("heading", { name: "Timeline" }).waitFor();
    await expect.poll(() => page.locator(".timeline li").count()).toBeGreaterThan(0);
    await screenshot(page, "lead");
    expect(errors).toEqual([]);
  });

  it("conversation inbox shows unread counts, and a reply reaches Delivered in the simulator", async () => {
    await textFrom(texter.contact.phone.number, number.phoneNumber, "Is the quote still valid?");
    const deadline = Date.now() + 15_000;
    let conversation: any;
    while (!conversation && Date.now() < deadline) {
      const listed = await org.request("POST", "/conversations/all/my", {
        body: { filters: [{ field: "unread", value: true }] },
      });
      conversation = listed.body.items.find((item: any) => item.contactPhoneNumber === texter.contact.phone.number);
      if (!conversation) await sleep(150);
    }
    expect(conversation.unreadCount).toBe(1);

    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Conversations" }).click();
    const row = page
      .getByTestId("inbox")
      .getByRole("link", { name: new RegExp(texter.contact.phone.number.replace("+", "\\+")) });
    await expect.poll(() => row.locator(".unread-count").textContent()).toBe("1 unread");
    await screenshot(page, "conversations");
    await row.click();
    await page.getByText("Is the quote still valid?").waitFor();

    const sent = page.waitForResponse(
      (response) => response.url().endsWith("/messages") && response.request().method() === "POST",
    );
    await page.getByLabel("Reply", { exact: true }).fill("Yes, until Friday.");
    await page.getByRole("button", { name: "Send" }).click();
    const message = await (await sent).json();
    expect(message.body).toBe("Yes, until Friday.");
    expect((await waitForMessage(org, message.id)).status).toBe("Delivered");
    // The thread follows the message until its final status, as the API reports it.
    await expect
      .poll(() => page.locator(`[data-message-id="${message.id}"] [data-testid="message-status"]`).textContent(), {
        timeout: 15_000,
      })
      .toBe("Delivered");
    await screenshot(page, "thread");
    expect(errors).toEqual([]);
  });

  it("automations switch off through the API, and billing shows the API's wallet and ledger", async () => {
    const automation = await createAutomation(
      org,
      chain({ type: "LeadCreated" }, [{ id: "hello", type: "SendSms", settings: { body: "Hi there" } }], {
        name: "Welcome text",
      }),
    );
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Automations" }).click();
    const toggle = page.getByLabel("Enable Welcome text");
    await toggle.waitFor();
    expect(await toggle.isChecked()).toBe(true);
    await toggle.click();
    await expect.poll(async () => (await org.request("GET", `/automations/${automation.id}`)).body.enabled).toBe(false);
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await screenshot(page, "automations");
    await page.getByRole("link", { name: "Welcome text", exact: true }).click();
    await page.getByRole("heading", { name: "Run history" }).waitFor();

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Billing" }).click();
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    // Money as money: the API's decimal string in dollars, cents always, sub-cent digits only where the amount has them.
    await expect.poll(() => page.getByTestId("wallet-balance").textContent()).toBe(dollars(wallet.balance));
    expect(await page.getByTestId("wallet-available").textContent()).toBe(dollars(wallet.availableBalance));
    expect(await page.getByTestId("prices").textContent()).toContain(
      `Text (per segment)${dollars(wallet.prices.smsSegment)}`,
    );
    const ledger = (await org.request("POST", "/billing/ledger/all/my", { body: { pageSize: 25 } })).body;
    await expect.poll(() => page.getByTestId("ledger").locator("tbody tr").count()).toBe(ledger.items.length);
    expect(await page.getByTestId("ledger").locator("tbody tr td:nth-child(3)").allTextContents()).toEqual(
      ledger.items.map((entry: any) => dollars(entry.amount)),
    );
    await screenshot(page, "billing");
    expect(errors).toEqual([]);
  });
});
