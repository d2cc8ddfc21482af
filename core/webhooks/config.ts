import { environmentNames } from "#stacks/definitions";

function flag(name: string): boolean | undefined {
  const raw = process.env[name];
  return raw === "true" ? true : raw === "false" ? false : undefined;
}

/** Delays after attempt 1, 2, … before the next one (seconds): 10 attempts over about 2.9 days (docs/webhooks.md). */
export const retryScheduleSeconds = [5, 60, 300, 1_800, 7_200, 21_600, 43_200, 86_400, 86_400] as const;

/**
 * Webhook settings from the environment, read lazily. Strict unless a setting
 * says otherwise: only the local stack (local/start.ts) sets them, so a
 * developer can receive deliveries on loopback over http.
 */
export const webhooksConfig = {
  get allowPrivateTargets(): boolean {
    return flag(environmentNames.webhookAllowPrivate) ?? false;
  },
  get requireHttps(): boolean {
    return flag(environmentNames.webhookRequireHttps) ?? true;
  },
  /** Multiplies every retry delay (tests shrink the schedule to seconds). */
  get retryScale(): number {
    const value = Number(process.env[environmentNames.webhookRetryScale] ?? "");
    return Number.isFinite(value) && value > 0 ? value : 1;
  },
  /** An endpoint with failures and no success for this long is disabled. */
  get disableAfterMs(): number {
    const value = Number(process.env[environmentNames.webhookDisableAfterMs] ?? "");
    return Number.isInteger(value) && value > 0 ? value : 5 * 24 * 3600 * 1000;
  },
  /** One attempt's whole budget (connect, send, response headers and capped body). */
  attemptTimeoutMs: 10_000,
  /** Response bytes read (and kept in the attempt log, truncated). */
  responseBodyCap: 1_024,
  /** How long a rotated-out secret still signs deliveries (both signatures are sent). */
  previousSecretOverlapMs: 24 * 3600 * 1000,
  /** Endpoints per organization (every recorded event reads them all). */
  maxEndpoints: 20,
};
