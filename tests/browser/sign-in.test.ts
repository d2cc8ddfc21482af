import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { identityUrl, newSignInUser, token } from "#tests/helpers/identity";
import { baseUrl, newOrganization } from "#tests/helpers/stack";
import { launchBrowser, screenshot } from "./browser.ts";

/** The page's sessionStorage, inside page callbacks (the tests' tsconfig has no DOM types). */
declare const sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/** Every URL the page asked for, and the bodies it posted to the issuer's token and revoke endpoints. */
function watch(page: Page) {
  const urls: string[] = [];
  const posts: { url: string; body: string }[] = [];
  page.on("request", (request) => {
    urls.push(request.url());
    if (request.method() === "POST" && request.url().startsWith(identityUrl()))
      posts.push({ url: new URL(request.url()).pathname, body: request.postData() ?? "" });
  });
  return { urls, posts };
}

const viewports = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
];

describe("signing in to the dashboard in Chromium (OAuth code + PKCE against the local identity provider)", () => {
  for (const viewport of viewports) {
    it(`signs in with e-mail and password, refreshes silently, and signing out revokes the session (${viewport.name})`, async () => {
      const organization = await newOrganization();
      const user = await newSignInUser(organization.organizationId);
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      // The issuer's pages link web fonts; this machine (and CI) has no internet, so those are refused at once.
      await context.route(/^https:\/\//, (route) => route.abort());
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(error.message));
      const seen = watch(page);

      await page.goto(`${baseUrl()}/app/`);
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      expect(await page.locator("textarea").count()).toBe(0);
      await screenshot(page, `sign-in-${viewport.name}-1-app`);
      await page.getByRole("button", { name: "Sign in" }).click();

      await page.waitForURL((url) => url.toString().startsWith(identityUrl()));
      await page.getByRole("link", { name: /e-mail and password/ }).click();
      await page.getByPlaceholder("Email").fill(user.email);
      await page.getByPlaceholder("Password").fill(user.password);
      await screenshot(page, `sign-in-${viewport.name}-2-issuer`);
      await page.getByRole("button", { name: "Continue" }).click();

      await page.getByRole("heading", { name: "Overview" }).waitFor();
      expect(new URL(page.url()).search).toBe(""); // the one-time code was removed from the address bar
      await screenshot(page, `sign-in-${viewport.name}-3-overview`);
      const first = await page.evaluate(() => ({
        access: sessionStorage.getItem("accessToken")!,
        refresh: sessionStorage.getItem("refreshToken")!,
      }));
      expect(
        seen.posts
          .filter((post) => post.url === "/token")
          .map((post) => new URLSearchParams(post.body).get("grant_type")),
      ).toEqual(["authorization_code"]);

      // The access token is about to expire: the next API call refreshes first, without the person noticing.
      await page.evaluate(() => {
        const [header, payload, signature] = sessionStorage.getItem("accessToken")!.split(".");
        const claims = JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/")));
        claims.exp = Math.floor(Date.now() / 1000) + 10;
        const encoded = btoa(JSON.stringify(claims)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
        sessionStorage.setItem("accessToken", `${header}.${encoded}.${signature}`);
      });
      await page.reload();
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      await expect
        .poll(
          () =>
            seen.posts.filter((post) => new URLSearchParams(post.body).get("grant_type") === "refresh_token").length,
        )
        .toBe(1);
      // The refresh answer is stored when it arrives: wait for the rotated refresh token.
      await expect.poll(() => page.evaluate(() => sessionStorage.getItem("refreshToken"))).not.toBe(first.refresh);
      const second = await page.evaluate(() => ({
        access: sessionStorage.getItem("accessToken")!,
        refresh: sessionStorage.getItem("refreshToken")!,
      }));
      expect(second.access).not.toBe(first.access);
      await page.getByTestId("lead-total").waitFor();

      await page.getByRole("button", { name: "Sign out" }).click();
      await page.getByRole("heading", { name: "Sign in" }).waitFor();
      await expect.poll(() => seen.posts.filter((post) => post.url === "/revoke").length).toBe(1);
      expect(
        await page.evaluate(() => [sessionStorage.getItem("accessToken"), sessionStorage.getItem("refreshToken")]),
      ).toEqual([null, null]);
      await screenshot(page, `sign-in-${viewport.name}-4-signed-out`);
      const afterSignOut = await token({ grant_type: "refresh_token", refresh_token: second.refresh });
      expect(afterSignOut.body.error).toBe("invalid_grant");

      // No token ever travelled in a URL.
      for (const secret of [first.access, first.refresh, second.access, second.refresh]) {
        expect(seen.urls.filter((url) => url.includes(secret) || url.includes(encodeURIComponent(secret)))).toEqual([]);
      }
      expect(errors).toEqual([]);
      await context.close();
    });
  }

  it("signs in with a one-time code read from the local mailbox page", async () => {
    const organization = await newOrganization();
    const user = await newSignInUser(organization.organizationId, "agent");
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.route(/^https:\/\//, (route) => route.abort());
    const page = await context.newPage();
    await page.goto(`${baseUrl()}/app/`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: /one-time e-mail code/ }).click();
    await page.getByPlaceholder("Email").fill(user.email);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByPlaceholder("Code").waitFor();

    const mailbox = await context.newPage();
    await mailbox.goto(`${identityUrl()}/dev/mailbox`);
    const row = mailbox.getByRole("row").filter({ hasText: user.email }).first();
    const code = (await row.locator("code").textContent())!;
    expect(code).toMatch(/^\d{6}$/);
    await screenshot(mailbox, "sign-in-mailbox");

    await page.getByPlaceholder("Code").fill(code);
    await page.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    const claims = await page.evaluate(() =>
      JSON.parse(atob(sessionStorage.getItem("accessToken")!.split(".")[1]!.replace(/-/g, "+").replace(/_/g, "/"))),
    );
    expect(claims).toMatchObject({
      sub: user.userId,
      properties: { role: "agent", org_id: organization.organizationId },
    });
    await context.close();
  });
});
