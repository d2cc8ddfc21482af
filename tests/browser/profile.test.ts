import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomNumber } from "#tests/helpers/messaging";
import { agents, type TestAgent } from "#tests/helpers/routing";
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
let agent: TestAgent;

beforeAll(async () => {
  browser = await launchBrowser();
  org = await newOrganization();
  [agent] = (await agents(org, 1)) as [TestAgent];
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe("an agent's own profile at a laptop's and a phone's size", () => {
  it("sets the phone and the alerts (a wrong phone is explained beside it) and goes away and back", async () => {
    const { page, errors } = await signedInPage(browser, agent.token);
    for (const [index, size] of sizes.entries()) {
      await page.setViewportSize(size);
      await open(page, "/profile", "Your profile");
      const phoneField = page.getByLabel("Your phone", { exact: true });
      await phoneField.fill("call me maybe");
      await page.getByRole("button", { name: "Save profile" }).click();
      expect(await errorOf(page, "Your phone")).toBeTruthy();

      const phone = randomNumber("646");
      await phoneField.fill(phone);
      const newLead = page.getByRole("group", { name: "A lead is assigned or offered to me" });
      const sms = newLead.getByLabel("Text message to my phone");
      // The second round turns text alerts off again.
      if (index === 0) await sms.check();
      else await sms.uncheck();
      await page
        .getByRole("group", { name: "A contact of my conversations replies" })
        .getByLabel("E-mail")
        .setChecked(index !== 0);
      await page.getByRole("button", { name: "Save profile" }).click();
      await expect.poll(() => page.getByTestId("saved").count()).toBe(1);
      const me = (await org.request("GET", "/users/me", { token: agent.token })).body;
      expect(me.phone).toBe(phone);
      expect(me.alerts).toEqual(
        index === 0 ? { newLead: ["email", "sms"], inboundReply: [] } : { newLead: ["email"], inboundReply: ["email"] },
      );

      const availability = page.getByTestId("away");
      await expect.poll(() => availability.textContent()).toBe("You are available.");
      await page.getByRole("button", { name: "I'm away" }).click();
      await expect.poll(() => availability.textContent()).toBe("You are away: no new leads, calls or alerts.");
      expect((await org.request("GET", `/routing/agents/${agent.id}/away`)).body).toMatchObject({ away: true });
      if (size.name === "phone") expect(await smallTouchTargets(page)).toEqual([]);
      await noSideways(page, size.width);
      await screenshot(page, `profile-${size.name}`);
      await page.getByRole("button", { name: "I'm back" }).click();
      await expect.poll(() => availability.textContent()).toBe("You are available.");
      expect((await org.request("GET", `/routing/agents/${agent.id}/away`)).body).toMatchObject({ away: false });
    }
    expect(errors.filter((error) => !error.includes("status of 400"))).toEqual([]);
  }, 120_000);
});
