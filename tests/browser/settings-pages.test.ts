import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLead, randomNumber } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { startReceiver, type Receiver } from "#tests/helpers/webhooks";
import { errorOf, launchBrowser, noSideways, open, screenshot, signedInPage, sizes } from "./browser.ts";

let browser: Browser;
let org: TestOrganization;
let receiver: Receiver;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  receiver = await startReceiver();
});

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

describe("webhooks and suppressions from the dashboard", () => {
  it("a webhook endpoint is added (secret shown once), tested, given a new secret, switched off and deleted", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/webhooks", "Webhooks");
      await page.getByLabel("URL", { exact: true }).fill("not a url");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      expect(await errorOf(page, "URL")).toBe("Must be an absolute URL such as https://example.com/webhooks.");

      const url = `${receiver.url}/${size.name}`;
      await page.getByLabel("URL", { exact: true }).fill(url);
      await page.getByLabel("Description", { exact: true }).fill(`CRM (${size.name})`);
      await page.getByRole("button", { name: "Add endpoint" }).click();
      const first = await page.getByTestId("new-secret").textContent();
      expect(first).toMatch(/^whsec_/);
      const card = page.locator(".endpoints > li", { hasText: url });
      await card.waitFor();
      const id = await card.getAttribute("data-endpoint-id");
      expect((await org.request("GET", `/webhook-endpoints/${id}`)).body).toMatchObject({
        url,
        description: `CRM (${size.name})`,
        enabledEventTypes: "all",
        enabled: true,
      });
      await page.getByRole("button", { name: "Done" }).click();

      await card.getByRole("button", { name: "Send test" }).click();
      const tests = sizes.indexOf(size) + 1;
      await receiver.waitFor(
        (received) => received.filter((delivery) => delivery.body.includes("webhook.test")).length === tests,
        30_000,
      );
      await expect
        .poll(
          async () => {
            // Reopening the log reads it again.
            const summary = card.getByText("Delivery log");
            if ((await card.locator("details", { hasText: "Delivery log" }).getAttribute("open")) !== null)
              await summary.click();
            await summary.click();
            return card
              .getByTestId("attempt-outcome")
              .first()
              .textContent({ timeout: 5000 })
              .catch(() => null);
          },
          { timeout: 30_000 },
        )
        .toBe("Delivered: HTTP 200");
      await screenshot(page, `webhooks-log-${size.name}`, { fullPage: false });
      await noSideways(page, size.width);

      await card.getByRole("button", { name: "New secret" }).click();
      await expect.poll(() => page.getByTestId("new-secret").textContent()).not.toBe(first);
      expect((await org.request("GET", `/webhook-endpoints/${id}`)).body.secretRotatedAt).not.toBeNull();
      await page.getByRole("button", { name: "Done" }).click();

      await card.getByLabel(`Enabled ${url}`).uncheck();
      await expect.poll(async () => (await org.request("GET", `/webhook-endpoints/${id}`)).body.enabled).toBe(false);
      await card.getByRole("button", { name: "Delete", exact: true }).click();
      await card.getByRole("button", { name: "Delete for good" }).click();
      await expect.poll(async () => (await org.request("GET", `/webhook-endpoints/${id}`)).status).toBe(404);
      await expect.poll(() => card.count()).toBe(0);
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });

  it("Replay sends an endpoint's past events again with their webhook-id, and says in words how many went", async () => {
    const hooks = await startReceiver();
    const created = await org.request("POST", "/webhook-endpoints", {
      body: { url: hooks.url, enabledEventTypes: ["lead.processed"] },
    });
    const id = created.body.endpoint.id;
    const lead = await createLead(org, randomNumber("212"));
    const [first] = await hooks.waitFor((received) => received.length === 1, 30_000);
    expect(JSON.parse(first!.body)).toMatchObject({ type: "lead.processed", data: { id: lead.id } });

    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      // Another page first, so the replay form comes back with its defaults.
      await open(page, "/leads", "Leads");
      await open(page, "/webhooks", "Webhooks");
      const card = page.locator(`[data-endpoint-id="${id}"]`);
      await card.getByText("Replay past events").click();
      const since = card.getByLabel("Events since", { exact: true });
      // A day back by default: the lead of a moment ago is in it.
      expect(Date.parse(await since.inputValue())).toBeLessThan(Date.now() - 23 * 3600_000);

      await since.fill("");
      await card.getByRole("button", { name: "Replay", exact: true }).click();
      await expect.poll(() => since.getAttribute("aria-invalid")).toBe("true");
      expect(await card.locator(`#${(await since.getAttribute("aria-describedby"))!}`).textContent()).toContain(
        "ISO 8601",
      );

      await since.fill(
        new Date(Date.now() - 3600_000 - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16),
      );
      await card.getByRole("button", { name: "Replay", exact: true }).click();
      await expect
        .poll(() => card.getByTestId("replay-answer").textContent())
        .toBe(
          "1 event is on the way again, with the same webhook-id as before, so your receiver can drop what it already has.",
        );
      const replays = sizes.indexOf(size) + 1;
      const received = await hooks.waitFor((all) => all.length === 1 + replays, 30_000);
      // The same event again, under the webhook-id the receiver saw the first time.
      expect(received.map((delivery) => delivery.headers["webhook-id"])).toEqual(
        received.map(() => first!.headers["webhook-id"]),
      );
      expect(JSON.parse(received.at(-1)!.body)).toMatchObject({ type: "lead.processed", data: { id: lead.id } });
      await noSideways(page, size.width);
      await screenshot(page, `webhooks-replay-${size.name}`, { fullPage: false });
    }
    await hooks.close();
    // The emptied date is refused (400) and explained beside the input; nothing else may go wrong.
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });

  it("the event types fold behind one line, and the ones chosen are the endpoint's subscription", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      // Another page first, so the form comes back folded.
      await open(page, "/leads", "Leads");
      await open(page, "/webhooks", "Webhooks");
      const choice = page.getByLabel("lead.processed", { exact: true });
      expect(await choice.isVisible()).toBe(false);
      await page.getByText("Events to send: every event, also future ones").click();
      await choice.check();
      await page.getByLabel("phone_number.paused", { exact: true }).check();
      await page.getByText("Events to send: 2 chosen").waitFor();
      await noSideways(page, size.width);
      await screenshot(page, `webhooks-event-types-${size.name}`, { fullPage: false });
      const url = `${receiver.url}/types-${size.name}`;
      await page.getByLabel("URL", { exact: true }).fill(url);
      await page.getByRole("button", { name: "Add endpoint" }).click();
      await page.getByTestId("new-secret").waitFor();
      const id = await page.locator(".endpoints > li", { hasText: url }).getAttribute("data-endpoint-id");
      expect((await org.request("GET", `/webhook-endpoints/${id}`)).body.enabledEventTypes).toEqual([
        "lead.processed",
        "phone_number.paused",
      ]);
      await page.getByRole("button", { name: "Done" }).click();
    }
    expect(errors).toEqual([]);
  });

  it("a number is suppressed with a note and removed again; a malformed number is explained beside the input", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/suppressions", "Suppressions");
      await page.getByLabel("Phone number", { exact: true }).fill("12");
      await page.getByRole("button", { name: "Add", exact: true }).click();
      expect(await errorOf(page, "Phone number")).toBeTruthy();

      const phone = randomNumber("212");
      await page.getByLabel("Phone number", { exact: true }).fill(phone);
      await page.getByLabel("Note", { exact: true }).fill("Asked on the phone");
      await page.getByRole("button", { name: "Add", exact: true }).click();
      const row = page.locator(`[data-phone="${phone}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain("Added by hand");
      expect(await row.textContent()).toContain("Asked on the phone");
      const listed = (await org.request("POST", "/suppressions/all/my", { body: {} })).body.items;
      expect(listed.find((entry: any) => entry.phoneNumber === phone)).toMatchObject({
        reason: "Manual",
        note: "Asked on the phone",
      });
      await noSideways(page, size.width);
      await screenshot(page, `suppressions-${size.name}`, { fullPage: false });

      await row.getByRole("button", { name: `Remove ${phone}` }).click();
      await expect.poll(() => row.count()).toBe(0);
      expect(
        (await org.request("POST", "/suppressions/all/my", { body: {} })).body.items.some(
          (entry: any) => entry.phoneNumber === phone,
        ),
      ).toBe(false);
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });

  it("messaging settings: quiet hours, replies and call forwarding saved, a bad number explained beside its input", async () => {
    const { page, errors } = await signedInPage(browser, org.ownerToken);
    for (const size of sizes) {
      await page.setViewportSize(size);
      await open(page, "/settings", "Settings");
      const helpText = `Reply STOP to end (${size.name}).`;
      await page.getByLabel("No texts from", { exact: true }).fill("21:00");
      await page.getByLabel("Until", { exact: true }).fill("08:00");
      await page.getByLabel("Reply to HELP", { exact: true }).fill(helpText);
      await page.getByLabel("Extra opt-out words", { exact: true }).fill("UNSUB\nREMOVE");
      await page.getByLabel("Ring calls to", { exact: true }).fill("123");
      await page.getByRole("button", { name: "Save settings" }).click();
      expect(await errorOf(page, "Ring calls to")).toBeTruthy();
      await noSideways(page, size.width);
      await screenshot(page, `settings-error-${size.name}`, { fullPage: false });

      await page.getByLabel("Ring calls to", { exact: true }).fill("+14155550123");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByTestId("saved").waitFor();
      expect((await org.request("GET", "/messaging/settings")).body).toMatchObject({
        quietHours: { start: "21:00", end: "08:00" },
        helpText,
        keywords: { optOut: ["UNSUB", "REMOVE"] },
        inboundCalls: { forwardTo: "+14155550123" },
      });
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  });
});
