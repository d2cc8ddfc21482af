import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { expect } from "vitest";
import { projectRoot } from "#local/paths";
import { baseUrl } from "#tests/helpers/stack";

/** The page's sessionStorage, inside page callbacks (the tests' tsconfig has no DOM types). */
declare const sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };

/** Debian's chromium (apt-get install chromium; .ci/run installs it when missing): nothing is downloaded at run time. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Screenshots of each page, kept as test artifacts (git-ignored). */
export const artifactsDir = join(projectRoot, "tests", "browser", "artifacts");

export function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI and this machine run as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

export interface DashboardPage {
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
}

/**
 * Opens the dashboard at /app in a tab whose session is already established with this access token, as the
 * sign-in flow leaves it (tests/browser/sign-in.test.ts drives that flow itself). The test tokens outlive the
 * test, so the app never needs the (placeholder) refresh token.
 */
export async function signedInPage(browser: Browser, token: string): Promise<DashboardPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((accessToken) => {
    if (!sessionStorage.getItem("refreshToken")) {
      sessionStorage.setItem("accessToken", accessToken);
      sessionStorage.setItem("refreshToken", "established-by-the-test");
    }
  }, token);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(`${baseUrl()}/app/`);
  return { page, errors };
}

/** Where screenshots go: the test artifacts, or docs/screenshots when `npm run web:screenshots` regenerates them. */
const screenshotsDir = process.env.SCREENSHOTS_DIR ? join(projectRoot, process.env.SCREENSHOTS_DIR) : artifactsDir;

export async function screenshot(
  page: Page,
  name: string,
  { fullPage = true }: { fullPage?: boolean } = {},
): Promise<void> {
  await mkdir(screenshotsDir, { recursive: true });
  await page.screenshot({ path: join(screenshotsDir, `${name}.png`), fullPage });
}

/** The two sizes the workspace must work at: a laptop and a phone. */
export const sizes = [
  { name: "desktop", width: 1440, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

/** Opens a hash route and waits until its heading shows and its requests (lists, names) have landed. */
export async function open(page: Page, route: string, heading: string | RegExp): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(route)}`);
  await page.getByRole("heading", { name: heading }).first().waitFor();
  await page.waitForLoadState("networkidle");
}

/** The text of the error an input is described by (the API's field error shown beside it), once it shows. */
export async function errorOf(page: Page, label: string): Promise<string | null> {
  const input = page.getByLabel(label, { exact: true });
  await expect.poll(() => input.getAttribute("aria-invalid")).toBe("true");
  return page.locator(`#${(await input.getAttribute("aria-describedby"))!}`).textContent();
}

/** The page is no wider than the window: nothing scrolls sideways. */
export async function noSideways(page: Page, width: number): Promise<void> {
  const scrollWidth = (await page.evaluate("document.documentElement.scrollWidth")) as number;
  // On failure, name the elements that stick out (the innermost ones first), so a log says what to fix.
  const sticking =
    scrollWidth > width
      ? ((await page.evaluate(`[...document.querySelectorAll("body *")]
          .filter((element) => element.getBoundingClientRect().right > ${width} + 0.5)
          .filter((element, _, all) => !all.some((other) => other !== element && element.contains(other)))
          .slice(0, 5)
          .map((element) => element.outerHTML.slice(0, 160) + " → " + Math.round(element.getBoundingClientRect().right) + " px")`)) as string[])
      : [];
  expect(scrollWidth, sticking.join("\n")).toBeLessThanOrEqual(width);
}

/** Controls a finger must hit, smaller than 44 px in either direction (inline links in running text are exempt). */
export async function smallTouchTargets(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll("button, select, input, textarea, nav a")]
    .filter((element) => element.getClientRects().length > 0 && getComputedStyle(element).visibility !== "hidden")
    .map((element) => {
      const target = element.type === "checkbox" || element.type === "radio" ? element.closest("label") ?? element : element;
      const box = target.getBoundingClientRect();
      return box.height < 44 || box.width < 44 ? (element.getAttribute("aria-label") || element.textContent.trim() || element.outerHTML.slice(0, 80)) + " " + Math.round(box.width) + "x" + Math.round(box.height) : null;
    })
    .filter(Boolean)`);
}
