import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { launchBrowser, screenshot, signedInPage, sizes } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
});

afterAll(async () => {
  await browser?.close();
});

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
