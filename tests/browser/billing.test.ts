import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as Money from "#core/shared/money";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { launchBrowser, noSideways, open, screenshot, signedInPage, sizes, smallTouchTargets } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
});

afterAll(async () => {
  await browser?.close();
});

/** Money as the dashboard shows it: dollars with at least cents and every sub-cent digit the amount has ("0.1533" → "$0.1533"). */
function dollars(amount: string): string {
  const [whole = "0", fraction = ""] = amount.split(".");
  return `$${Number(whole).toLocaleString("en-US")}.${fraction.replace(/0+$/, "").padEnd(2, "0")}`;
}

const balance = async () => (await org.request("GET", "/billing/wallet")).body.balance as string;

describe("adding funds from the billing page", () => {
  it("a refused amount is explained beside the input; a paid top-up lands in the wallet and the ledger", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    // Errors on our pages only: the payment simulator's page (the Stripe API stand-in) answers the browser's
    // favicon request 401, as the API it imitates would.
    const ours: string[] = [];
    page.on("console", (message) => {
      if (
        message.type() === "error" &&
        new URL(message.location().url || page.url()).origin === new URL(baseUrl()).origin
      )
        ours.push(message.text());
    });
    for (const size of sizes) {
      await page.setViewportSize(size);
      await page.evaluate(`location.hash = "/billing"`);
      await page.getByRole("heading", { name: "Add funds" }).waitFor();
      const before = await balance();
      const amount = page.getByLabel("Amount (USD)");
      await amount.fill("0.50");
      await page.getByRole("button", { name: "Add funds" }).click();
      await expect.poll(() => amount.getAttribute("aria-invalid")).toBe("true");
      expect(await page.locator(`#${(await amount.getAttribute("aria-describedby"))!}`).textContent()).toBe(
        "Must be at least 1.00.",
      );

      await amount.fill("25");
      await page.getByRole("button", { name: "Add funds" }).click();
      // The local payment simulator's page stands in for the card form; paying there brings the payer back.
      await page.getByRole("button", { name: "Pay 25.00" }).click();
      await page.getByRole("heading", { name: "Billing" }).waitFor();
      await expect
        .poll(() => page.getByTestId("top-up-outcome").textContent(), { timeout: 30_000 })
        .toBe("Payment received: $25.00 added.");
      const after = await balance();
      expect(Number(after) - Number(before)).toBe(25);
      await expect
        .poll(() => page.getByTestId("wallet-balance").textContent())
        .toBe(new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(Number(after)));
      expect(await page.getByTestId("ledger").locator("tbody tr").first().textContent()).toContain("$25.00");
      expect((await page.evaluate("document.documentElement.scrollWidth")) as number).toBeLessThanOrEqual(size.width);
      await screenshot(page, `billing-top-up-${size.name}`, { fullPage: false });
    }
    expect(ours.filter((error) => !error.includes("status of 400"))).toEqual([]);
    expect(errors.filter((error) => !error.includes("status of 40"))).toEqual([]);
  });
});

describe("usage this month on the billing page", () => {
  it("lists each kind with its quantity and amount as money, and the total, at both sizes", async () => {
    const spender = await newOrganization();
    await addNumber(spender);
    const sent = await send(spender, { to: randomNumber(), body: "x".repeat(200) });
    await waitForMessage(spender, sent.body.id, (message) => message.billingStatus === "Charged");
    const usage = (await spender.request("GET", "/billing/usage")).body;
    const fee = usage.kinds.find((kind: { kind: string }) => kind.kind === "PhoneNumberMonthly");
    expect(usage.total.amount).toBe(Money.toBilling(Money.add(fee.amount, "0.02")));
    const { page, errors } = await signedInPage(browser, spender.agentToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/billing", "Usage this month");
      const rows = page.getByTestId("usage").locator("tbody tr");
      await expect.poll(() => rows.count()).toBe(5);
      const cells = async (label: string) =>
        (await rows.filter({ hasText: label }).locator("th, td").allTextContents()).map((text) => text.trim());
      expect(await cells("Text messages")).toEqual(["Text messages", "1 message · 2 segments", "$0.02"]);
      expect(await cells("Picture messages")).toEqual(["Picture messages", "0 messages", "$0.00"]);
      expect(await cells("Phone numbers")).toEqual([
        "Phone numbers",
        `1 monthly fee · ${fee.quantity} day${fee.quantity === 1 ? "" : "s"}`,
        dollars(fee.amount),
      ]);
      expect(await page.getByTestId("usage-total").textContent()).toBe(dollars(usage.total.amount));
      await noSideways(page, size.width);
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await screenshot(page, `billing-usage-${size.name}`, { fullPage: false });
    }
    expect(errors).toEqual([]);
  });
});
