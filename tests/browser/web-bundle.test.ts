import { describe, expect, it } from "vitest";
import { initialJavaScriptGzipBytes } from "#local/web-app";

/** The global setup built web/dist (ensureWebBuild); the budget is the 150 KB gzipped. */
describe("dashboard bundle", () => {
  it("loads the overview with at most 150 KB of gzipped JavaScript", async () => {
    const { files, bytes } = await initialJavaScriptGzipBytes();
    console.log(`dashboard initial JavaScript: ${files.join(", ")} = ${(bytes / 1024).toFixed(1)} KB gzipped`);
    expect(files.length).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(150 * 1024);
  });
});
