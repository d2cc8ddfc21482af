import { percentile, printTable } from "#bench/measure";
import { seedAnalytics } from "#bench/analytics";
import type { BenchContext } from "#bench/run";
import { ensureWebBuild } from "#local/web-app";
import { launchBrowser } from "#tests/browser/browser";

/**
 * `npm run bench -- dashboard`: the overview's time to first chart in Chromium for an organization with the
 * analytics benchmark's data (BENCH_ANALYTICS_LEADS, default 20 000 leads / about 340 000 events with the busy edge minutes), over
 * BENCH_DASHBOARD_LOADS fresh page loads (default 5): from navigation start to the first chart's canvas,
 * read from the page's own clock. Each load is a new browser context (cold cache), signed in with the key.
 */
export async function dashboardBench(context: BenchContext): Promise<void> {
  const loads = Number(process.env.BENCH_DASHBOARD_LOADS ?? 5);
  const { result, seedSeconds } = await seedAnalytics(context);
  await ensureWebBuild();
  const browser = await launchBrowser();
  const firstChartMs: number[] = [];
  try {
    for (let index = 0; index < loads; index++) {
      const browserContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await browserContext.addInitScript({
        content: `sessionStorage.setItem("accessToken", ${JSON.stringify(context.apiKey)});`,
      });
      const page = await browserContext.newPage();
      await page.goto(`${context.baseUrl}/app/`);
      await page.locator("figure canvas").first().waitFor({ timeout: 60_000 });
      firstChartMs.push(await page.evaluate(() => performance.now()));
      await browserContext.close();
    }
  } finally {
    await browser.close();
  }
  printTable("Dashboard: overview (last 30 days) time to first chart, Chromium, cold context per load", [
    {
      leads: result.leads,
      events: result.events,
      seedSeconds,
      loads,
      p50Ms: Math.round(percentile(firstChartMs, 50)),
      maxMs: Math.round(Math.max(...firstChartMs)),
    },
  ]);
}
