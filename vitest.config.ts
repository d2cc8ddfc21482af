import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "node",
    include: ["tests/**/*.test.ts"],
    // The mocked deploy has its own run (`npm run test:deploy`): no emulators, minutes of bundling.
    exclude: ["tests/deploy/**", "**/node_modules/**"],
    // Starts DynamoDB Local, the SQS emulator and the local HTTP server once per run.
    globalSetup: ["tests/setup/global.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
    // expect.poll waits for asynchronous work (a consumer's write, a page's render): its 1 s default is too short on a
    // loaded two-core machine. The conditions polled stay exact; only how long they may take grows.
    expect: { poll: { timeout: 10_000 } },
    // Two cores: the JVM and the local server already run beside the workers.
    pool: "forks",
    maxWorkers: 2,
  },
});
