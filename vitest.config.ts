import { defineConfig } from "vitest/config";

/**
 * Two projects, the test pyramid's two floors:
 * - `unit` (tests/unit): pure logic and module wiring. No emulator, no stack: it runs in seconds and runs first
 *   (`npm test` stops there when it fails). A unit test that needs DynamoDB, a queue or the HTTP server belongs in
 *   tests/integration.
 * - `stack` (tests/http, tests/integration, tests/browser): behaviour through the public interface against the real
 *   emulators, started once per run by the global setup.
 */
export default defineConfig({
  test: {
    environment: "node",
    // The mocked deploy has its own run (`npm run test:deploy`): no emulators, minutes of bundling.
    exclude: ["tests/deploy/**", "**/node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // expect.poll waits for asynchronous work (a consumer's write, a page's render): its 1 s default is too short on a
    // loaded two-core machine. The conditions polled stay exact; only how long they may take grows.
    expect: { poll: { timeout: 10_000 } },
    // Tests call core in their own worker too, where the carrier simulator must answer as on the local stack.
    setupFiles: ["tests/setup/simulator.ts"],
    // Two cores: the JVM and the local server already run beside the workers.
    pool: "forks",
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "unit", include: ["tests/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "stack",
          include: ["tests/http/**/*.test.ts", "tests/integration/**/*.test.ts", "tests/browser/**/*.test.ts"],
          // Starts DynamoDB Local, the SQS emulator and the local HTTP server once per run.
          globalSetup: ["tests/setup/global.ts"],
          // One test file at a time: the whole stack (every handler, consumer and schedule) is one Node process beside
          // DynamoDB Local's JVM and Chromium on two cores. Two files at once saturated it, and tests that take
          // seconds alone ran into their minute-long time-outs (3 to 5 of ~700 per full run).
          maxWorkers: 1,
        },
      },
    ],
  },
});
