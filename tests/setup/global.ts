import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JWK } from "jose";
import type { TestProject } from "vitest/node";
import { logger } from "#core/observability/index";
import { applyShortWaits } from "#local/short-waits";
import { startLocalStack } from "#local/start";
import { startCarrierFakes } from "#tests/setup/carrier-fakes";

declare module "vitest" {
  export interface ProvidedContext {
    /** The local HTTP server every tests/http test talks to. */
    baseUrl: string;
    /** TABLE_NAME, queue URLs, emulator endpoints and auth settings of the test stack. */
    stackEnv: Record<string, string>;
    /** The test stack's user-token signing key. */
    signing: { privateJwk: JWK; issuer: string };
    /** The local Telnyx and Twilio REST fakes the stack's adapters call, and the Ed25519 key Telnyx webhooks are signed with. */
    carrierFakes: { url: string; telnyxPrivateKeyPem: string };
    /** The local identity provider (OpenAuth issuer) the dashboard signs in with. */
    identityUrl: string;
  }
}

/**
 * Starts the whole local stack once per test run: DynamoDB Local in memory, the
 * SQS emulator, the HTTP server with every route, queue pollers and schedules.
 * Secrets live in a temporary folder, never in the developer's `.local/`.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const stateDir = await mkdtemp(join(tmpdir(), "lead-api-tests-"));
  applyShortWaits();
  // Webhooks: the 3-day retry schedule shrunk to seconds; an endpoint failing for 5 s is disabled.
  process.env.WEBHOOK_RETRY_SCALE ??= "0.0001";
  process.env.WEBHOOK_DISABLE_AFTER_MS ??= "5000";
  logger.setLogLevel(process.env.POWERTOOLS_LOG_LEVEL as "WARN"); // created at import, before the line above
  // Telnyx and Twilio are configured too, against local fakes of their REST APIs; the stage's default stays the simulator.
  const fakes = await startCarrierFakes();
  Object.assign(process.env, fakes.env);
  const stack = await startLocalStack({
    inMemory: true,
    port: 0,
    stateDir,
    provision: false,
    trustForwardedFor: true,
    log: (line) => {
      if (!/ → \d{3} \(/.test(line)) console.error(`[local stack] ${line}`);
    },
  });
  project.provide("baseUrl", stack.baseUrl);
  project.provide("stackEnv", stack.env);
  project.provide("signing", { privateJwk: stack.secrets.privateJwk, issuer: stack.secrets.issuer });
  project.provide("identityUrl", stack.identity.url);
  project.provide("carrierFakes", { url: fakes.url, telnyxPrivateKeyPem: fakes.telnyxPrivateKeyPem });
  // Workers are forked after this point and inherit the environment too.
  Object.assign(process.env, stack.env);
  return async () => {
    await stack.stop();
    await fakes.stop();
    await rm(stateDir, { recursive: true, force: true });
  };
}
