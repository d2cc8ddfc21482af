import { defineConfig } from "vitest/config";

/**
 * `npm run test:deploy`: the real sst.config.ts deployed under Pulumi mocks (tests/deploy/mock-deploy.mjs), once per
 * stage in the global setup, then assertions over the recorded resource graphs. Needs no emulator and no AWS.
 */
export default defineConfig({
  test: {
    environment: "node",
    include: ["tests/deploy/**/*.test.ts"],
    globalSetup: ["tests/deploy/setup.ts"],
    testTimeout: 30_000,
    // Three mocked deploys, one after another (each bundles up to 84 functions on first run).
    hookTimeout: 900_000,
    pool: "forks",
    maxWorkers: 1,
  },
});
