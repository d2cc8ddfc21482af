import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addNumber } from "#tests/helpers/messaging";
import { brandBody, uniqueName } from "#tests/helpers/registration";
import { newOrganization } from "#tests/helpers/stack";
import { errorOf, launchBrowser, noSideways, open, screenshot, signedInPage, sizes } from "./browser.ts";

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

const brand: Record<string, string> = {
  "Legal name": "Acme Roofing LLC",
  "Compliance e-mail": "compliance@acme-roofing.example",
  EIN: "12-3456789",
  "Business phone": "(212) 555-0100",
  Website: "https://acme-roofing.example",
  Street: "1 Main St",
  City: "New York",
  State: "NY",
  "ZIP code": "10001",
  Industry: "CONSTRUCTION",
};

const campaign: Record<string, string> = {
  "What the messages are for": "Replies to homeowners who asked Acme Roofing for a quote through our website form.",
  "Sample messages": [
    "Hi Sam, this is Acme Roofing about your quote request. When can we visit? Reply STOP to opt out.",
    "Acme Roofing: your inspection is booked for Tuesday 10am. Reply STOP to opt out.",
  ].join("\n"),
  "How people opt in":
    "Homeowners fill in the quote form at https://acme-roofing.example/quote and tick a box agreeing to texts.",
  "Answer to HELP": "Acme Roofing: call 212-555-0100 or email help@acme-roofing.example.",
  "Answer to STOP": "Acme Roofing: you are unsubscribed and will receive no further messages.",
};

async function fill(page: Page, values: Record<string, string>): Promise<void> {
  for (const [label, value] of Object.entries(values)) {
    const input = page.getByLabel(label, { exact: true });
    await input.fill(value);
    // Lists are read when the input is left.
    await input.blur();
  }
}

describe("10DLC registration from the dashboard (issue 31)", () => {
  it("a brand is refused in words, rejected with its reason, corrected and approved; a campaign is registered, approved and given a number", async () => {
    for (const size of sizes) {
      const org = await newOrganization();
      const number = await addNumber(org);
      const { page, errors } = await signedInPage(browser, org.ownerToken);
      await page.setViewportSize(size);
      await open(page, "/registration", "10DLC registration");
      await page.getByText("No brand registered yet.").waitFor();

      await page.getByLabel("Name people know", { exact: true }).fill("Acme Roofing");
      await page.getByRole("button", { name: "Register the brand" }).click();
      expect(await errorOf(page, "Legal name")).toBeTruthy();
      expect(await page.getByTestId("problem").textContent()).toContain("Legal name:");

      // The simulator's registry rejects a brand whose display name says "rejected".
      await fill(page, { ...brand, "Name people know": "Acme rejected" });
      await page.getByRole("button", { name: "Register the brand" }).click();
      await expect.poll(() => page.getByTestId("brand-status").textContent()).toBe("Waiting for the carriers");
      await page.getByRole("button", { name: "Ask the carriers now" }).click();
      await expect.poll(() => page.getByTestId("brand-status").textContent()).toBe("Rejected");
      expect(await page.getByTestId("brand").textContent()).toContain("display name says 'rejected'");
      await page.getByText("Correct the details and submit the brand again.").waitFor();
      expect(await page.getByLabel("Legal name", { exact: true }).inputValue()).toBe("Acme Roofing LLC");

      await page.getByLabel("Name people know", { exact: true }).fill("Acme Roofing");
      await page.getByRole("button", { name: "Register the brand" }).click();
      await expect.poll(() => page.getByTestId("brand-status").textContent()).toBe("Waiting for the carriers");
      await page.getByRole("button", { name: "Ask the carriers now" }).click();
      await expect.poll(() => page.getByTestId("brand-status").textContent()).toBe("Approved");
      expect(await page.getByTestId("vetting-score").textContent()).toBe("75 of 100");
      expect((await org.request("GET", "/carrier-registration/brand")).body).toMatchObject({
        displayName: "Acme Roofing",
        status: "Approved",
        vettingScore: 75,
      });

      await page.getByRole("button", { name: "Add a campaign" }).click();
      await fill(page, { ...campaign, "What the messages are for": "Quotes." });
      await page.getByRole("button", { name: "Register the campaign" }).click();
      expect(await errorOf(page, "What the messages are for")).toContain("At least 40 characters");
      await fill(page, campaign);
      await page.getByRole("button", { name: "Register the campaign" }).click();
      const card = page.getByTestId("campaigns").locator("li").first();
      await expect.poll(() => card.getByTestId("campaign-status").textContent()).toBe("Waiting for the carriers");
      await page.getByRole("button", { name: "Ask the carriers now" }).click();
      await expect.poll(() => card.getByTestId("campaign-status").textContent()).toBe("Approved");

      await card.getByLabel("Number to attach").selectOption(number.id);
      await card.getByRole("button", { name: "Attach" }).click();
      await expect.poll(() => card.getByTestId("attached").textContent()).toBe("Numbers: Line 212");
      const campaigns = (await org.request("GET", "/carrier-registration/campaigns")).body.items;
      expect(campaigns).toEqual([expect.objectContaining({ status: "Approved", phoneNumberIds: [number.id] })]);
      expect((await org.request("GET", `/phone-numbers/${number.id}`)).body.registration).toEqual({
        kind: "TenDlcCampaign",
        campaignId: campaigns[0].id,
        status: "Approved",
      });
      await noSideways(page, size.width);
      await screenshot(page, `registration-approved-${size.name}`);
      expect(errors.filter((error) => !error.includes("status of 400") && !error.includes("status of 404"))).toEqual(
        [],
      );
    }
  });
});

describe("toll-free verification from the dashboard (issue 31)", () => {
  it("an owner verifies a toll-free number: refused in words, rejected with its reason, corrected and approved", async () => {
    for (const size of sizes) {
      const org = await newOrganization();
      const tollFree = await addNumber(org, "888");
      await addNumber(org, "212");
      expect((await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) })).status).toBe(
        201,
      );
      const { page, errors } = await signedInPage(browser, org.ownerToken);
      await page.setViewportSize(size);
      await open(page, "/registration", "10DLC registration");
      // Only the toll-free number is listed for verification, and it is not offered to a campaign.
      const card = page.getByTestId("toll-free");
      expect(await card.count()).toBe(1);
      await expect.poll(() => card.getByTestId("verification-status").textContent()).toBe("Not verified");

      await card.getByRole("button", { name: "Verify this number" }).click();
      await card.getByLabel("What the texts are for", { exact: true }).fill("Quotes.");
      await card.getByRole("button", { name: "Submit the verification" }).click();
      expect(await errorOf(page, "What the texts are for")).toContain("At least 40 characters");

      // The simulator's reviewers reject a summary that says "rejected".
      await fill(page, {
        "What the texts are for": "Quote replies to homeowners; the simulator has rejected this summary on purpose.",
        "A real message": "Acme Roofing: your inspection is booked for Tuesday 10am. Reply STOP to opt out.",
        "Opt-in images": "https://acme-roofing.example/quote-form.png",
        "Contact first name": "Dana",
        "Contact last name": "Reyes",
      });
      await card.getByRole("button", { name: "Submit the verification" }).click();
      await expect.poll(() => card.getByTestId("verification-status").textContent()).toBe("Waiting for the carriers");
      await page.getByRole("button", { name: "Ask the carriers now" }).click();
      await expect.poll(() => card.getByTestId("verification-status").textContent()).toBe("Rejected");
      expect(await card.getByTestId("verification-reason").textContent()).toContain("says 'rejected'");
      await card.getByText("The carrier lets the details be corrected").waitFor();
      await screenshot(page, `toll-free-rejected-${size.name}`);

      await card.getByRole("button", { name: "Correct and submit again" }).click();
      expect(await card.getByLabel("Contact last name", { exact: true }).inputValue()).toBe("Reyes");
      await noSideways(page, size.width);
      await screenshot(page, `toll-free-form-${size.name}`);
      await fill(page, {
        "What the texts are for": "Acme Roofing texts homeowners who asked for a quote on its website form.",
      });
      await card.getByRole("button", { name: "Submit the verification" }).click();
      await expect.poll(() => card.getByTestId("verification-status").textContent()).toBe("Waiting for the carriers");
      await page.getByRole("button", { name: "Ask the carriers now" }).click();
      await expect.poll(() => card.getByTestId("verification-status").textContent()).toBe("Approved");

      const verification = (await org.request("GET", `/phone-numbers/${tollFree.id}/toll-free-verification`)).body;
      expect(verification).toMatchObject({
        status: "Approved",
        useCaseSummary: "Acme Roofing texts homeowners who asked for a quote on its website form.",
        optInImageUrls: ["https://acme-roofing.example/quote-form.png"],
        contactFirstName: "Dana",
      });
      expect((await org.request("GET", `/phone-numbers/${tollFree.id}`)).body.registration).toEqual({
        kind: "TollFreeVerification",
        campaignId: null,
        status: "Approved",
      });
      await noSideways(page, size.width);
      await screenshot(page, `toll-free-approved-${size.name}`);
      expect(errors.filter((error) => !error.includes("status of 400") && !error.includes("status of 404"))).toEqual(
        [],
      );
    }
  });
});
