import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { errorOf, launchBrowser, noSideways, open, screenshot, signedInPage, sizes } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization("Settings Browser Co");
});

afterAll(async () => {
  await browser?.close();
});

describe("Settings: the organization profile and messaging failover", () => {
  it("the profile is changed from the page and read back from the API; a bad website is explained beside it", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    const zones = { desktop: "America/Chicago", phone: "Europe/Paris" } as const;
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/settings", "Settings");
      const profile = page.getByRole("region", { name: "Organization" });
      await page.getByLabel("Website", { exact: true }).fill("ftp://files.example.com");
      await profile.getByRole("button", { name: "Save organization" }).click();
      expect(await errorOf(page, "Website")).toBe("Must be a web address such as https://example.com.");
      await noSideways(page, size.width);
      await screenshot(page, `settings-organization-error-${size.name}`, { fullPage: false });

      const name = `Acme Roofing (${size.name})`;
      await page.getByLabel("Business name", { exact: true }).fill(name);
      await page.getByLabel("Time zone", { exact: true }).fill(zones[size.name]);
      await page.getByLabel("Business phone", { exact: true }).fill("(312) 555-0100");
      await page.getByLabel("Website", { exact: true }).fill(`https://${size.name}.acme.example.com`);
      await profile.getByRole("button", { name: "Save organization" }).click();
      await page.getByTestId("organization-saved").waitFor();
      // The API's normalised phone replaces what was typed.
      await expect.poll(() => page.getByLabel("Business phone", { exact: true }).inputValue()).toBe("+13125550100");
      expect((await org.request("GET", "/organizations/me")).body).toMatchObject({
        name,
        timeZone: zones[size.name],
        phone: "+13125550100",
        website: `https://${size.name}.acme.example.com`,
      });
    }
    // An unknown time zone is the API's to refuse, beside the input.
    await page.getByLabel("Time zone", { exact: true }).fill("Mars/Olympus");
    await page.getByRole("button", { name: "Save organization" }).click();
    expect(await errorOf(page, "Time zone")).toBe("Must be an IANA time zone, e.g. America/New_York.");
    expect((await org.request("GET", "/organizations/me")).body.timeZone).toBe(zones.phone);
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });

  it("failover is chosen from the page and read back from the API; failing over to the same carrier is explained beside it", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/settings", "Settings");
      await page.getByLabel("Carrier", { exact: true }).selectOption("telnyx");
      await page.getByLabel("Fail over to", { exact: true }).selectOption("telnyx");
      await page.getByRole("button", { name: "Save settings" }).click();
      expect(await errorOf(page, "Fail over to")).toBe(
        "telnyx is already the organization's provider; fail over to another one.",
      );
      await page.getByRole("region", { name: "Messaging failover" }).scrollIntoViewIfNeeded();
      await noSideways(page, size.width);
      await screenshot(page, `settings-failover-error-${size.name}`, { fullPage: false });

      await page.getByLabel("Fail over to", { exact: true }).selectOption("twilio");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByTestId("saved").waitFor();
      expect((await org.request("GET", "/messaging/settings")).body).toMatchObject({
        provider: "telnyx",
        failoverProvider: "twilio",
      });

      // Opened again, the page shows what is stored; "Off" turns failover off.
      await open(page, "/profile", "Your profile");
      await open(page, "/settings", "Settings");
      expect(await page.getByLabel("Carrier", { exact: true }).inputValue()).toBe("telnyx");
      expect(await page.getByLabel("Fail over to", { exact: true }).inputValue()).toBe("twilio");
      await page.getByLabel("Fail over to", { exact: true }).selectOption({ label: "Off" });
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByTestId("saved").waitFor();
      expect((await org.request("GET", "/messaging/settings")).body).toMatchObject({
        provider: "telnyx",
        failoverProvider: null,
      });
    }
    await screenshot(page, "settings-failover-phone-full");
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });
});
