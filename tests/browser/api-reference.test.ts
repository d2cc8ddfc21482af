import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseUrl } from "#tests/helpers/stack";
import { launchBrowser } from "./browser.ts";

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("the API reference page in a browser", () => {
  it("renders the operations list with no request to any other origin", { timeout: 60_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const origin = new URL(baseUrl()).origin;
    // Offline but for our own server: anything else is refused and remembered.
    const foreign: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith("blob:") || url.startsWith("data:")) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));

    await page.goto(`${baseUrl()}/docs`);
    // Operation summaries from the contract appear in the menu and the body.
    await page
      .getByRole("heading", { name: "This API's OpenAPI 3.1 contract" })
      .waitFor({ state: "visible", timeout: 30_000 });
    // Each card route once (the name matches as a substring: the card beside /a2a has its own, longer summary).
    const cardHeadings = await page.getByRole("heading", { name: "The public A2A agent card" }).allInnerTexts();
    expect(cardHeadings.sort()).toEqual([
      "The public A2A agent card",
      "The public A2A agent card, beside the JSON-RPC endpoint",
    ]);
    // The side menu lists every operation of the contract (collapsed groups keep them in the DOM).
    const contract = (await (await fetch(`${origin}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const operationIds = Object.values(contract.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => (operation?.operationId ? [operation.operationId] : [])),
    );
    // Redoc names each menu entry `tag/<tag>/operation/<operationId>`.
    const listed = await page
      .locator('li[data-item-id*="operation/"]')
      .evaluateAll((items) => items.map((item) => item.getAttribute("data-item-id")!.split("operation/").pop()));
    expect(operationIds.length).toBeGreaterThan(50);
    expect(operationIds.filter((id) => !listed.includes(id))).toEqual([]);
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
