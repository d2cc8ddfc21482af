import { config } from "#core/config";
import { environmentNames } from "#stacks/definitions";

/**
 * Run engine settings from the environment (read lazily). Deployed stages refuse HttpRequest targets on private,
 * loopback and link-local addresses; the local stack and tests (which talk to DynamoDB Local) allow them unless
 * AUTOMATION_HTTP_ALLOW_PRIVATE says otherwise.
 */
export const runsConfig = {
  get allowPrivateHttpTargets(): boolean {
    const raw = process.env[environmentNames.automationHttpAllowPrivate];
    if (raw === "true") return true;
    if (raw === "false") return false;
    return config.dynamodbEndpoint !== undefined;
  },
  /** First HttpRequest retry delay; each further retry doubles it (with jitter), up to 5 minutes. */
  get retryBaseMs(): number {
    const value = Number(process.env[environmentNames.automationRetryBaseMs] ?? "");
    return Number.isInteger(value) && value > 0 ? value : 5_000;
  },
};
