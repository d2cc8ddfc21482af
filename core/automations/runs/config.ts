import { environmentNames } from "#stacks/definitions";

/**
 * Run engine settings from the environment (read lazily). HttpRequest targets on private, loopback and
 * link-local addresses are refused unless AUTOMATION_HTTP_ALLOW_PRIVATE is exactly `true`, which only the
 * local stack sets (local/start.ts): no other setting (such as a DynamoDB endpoint) can turn the guard off.
 */
export const runsConfig = {
  get allowPrivateHttpTargets(): boolean {
    return process.env[environmentNames.automationHttpAllowPrivate] === "true";
  },
  /** First HttpRequest retry delay; each further retry doubles it (with jitter), up to 5 minutes. */
  get retryBaseMs(): number {
    const value = Number(process.env[environmentNames.automationRetryBaseMs] ?? "");
    return Number.isInteger(value) && value > 0 ? value : 5_000;
  },
};
