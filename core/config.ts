import { environmentNames, queues, type QueueName } from "#stacks/definitions";

/**
 * Settings every function reads from its environment. Read lazily so the local
 * runner and the tests can set the environment before the first call.
 */
export const config = {
  get tableName(): string {
    return required(environmentNames.tableName);
  },
  queueUrl(queue: QueueName): string {
    return required(queues[queue].urlEnv);
  },
  get jwtIssuer(): string {
    return required(environmentNames.jwtIssuer);
  },
  get jwksUrl(): string {
    return required(environmentNames.jwksUrl);
  },
  /** Local stacks preload the JWKS (aws-jwt-verify fetches only over https). */
  get jwksJson(): string | undefined {
    return optional(environmentNames.jwksJson);
  },
  get tokenSigningKey(): string {
    return required(environmentNames.tokenSigningKey);
  },
  get dynamodbEndpoint(): string | undefined {
    return optional(environmentNames.dynamodbEndpoint);
  },
  get sqsEndpoint(): string | undefined {
    return optional(environmentNames.sqsEndpoint);
  },
  /** Requests per partition per 60 s window (spec: 300). */
  get rateLimitRequests(): number {
    const value = Number(optional(environmentNames.rateLimitRequests) ?? 300);
    return Number.isInteger(value) && value > 0 ? value : 300;
  },
  /** Items a filtered list may read per request on the key-ordered path; unset means core/db/list.ts's default. */
  get listScanBudget(): number | undefined {
    const value = Number(optional(environmentNames.listScanBudget));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  },
  /** Where clients reach the API; used in the agent card and webhook URLs. */
  get publicBaseUrl(): string {
    return optional(environmentNames.publicBaseUrl) ?? "http://127.0.0.1:3000";
  },
};

function optional(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

function required(name: string): string {
  const value = optional(name);
  if (value === undefined) throw new Error(`Missing environment variable ${name}`);
  return value;
}
