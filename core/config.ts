import { AsyncLocalStorage } from "node:async_hooks";
import { environmentNames, queues, type QueueName } from "#stacks/definitions";

/**
 * The queues the running function is granted (its manifest `sendsTo`). In AWS a
 * function only has the URL variables (and `sqs:SendMessage`) of those queues;
 * the local stack runs every function in one process with every URL set, so its
 * runner records each invocation's grant here and `config.queueUrl` refuses the
 * others exactly as a deployed function would fail. Outside an invocation (tests
 * calling core, the admin CLI) there is no grant and nothing is checked.
 */
const runningFunctionGrant = new AsyncLocalStorage<ReadonlySet<QueueName>>();

/** Runs one invocation of a function with its stack's queue grant (local runner only). */
export function runWithQueueGrant<T>(sendsTo: readonly QueueName[], invocation: () => T): T {
  return runningFunctionGrant.run(new Set(sendsTo), invocation);
}

/**
 * Settings every function reads from its environment. Read lazily so the local
 * runner and the tests can set the environment before the first call.
 */
export const config = {
  get tableName(): string {
    return required(environmentNames.tableName);
  },
  queueUrl(queue: QueueName): string {
    const granted = runningFunctionGrant.getStore();
    if (granted && !granted.has(queue)) {
      throw new Error(
        `Missing environment variable ${queues[queue].urlEnv}: this function is not granted the ${queue} queue (add it to sendsTo in stacks/definitions.ts)`,
      );
    }
    return required(queues[queue].urlEnv);
  },
  /** The issuers whose user tokens are accepted: the stage's identity provider (locally also the stack's own test signer). */
  get jwtIssuers(): string[] {
    return required(environmentNames.jwtIssuer).split(/\s+/).filter(Boolean);
  },
  /** The client ids a user token must name in `aud`: a token the issuer gave another client is refused. */
  get jwtAudience(): string[] {
    return required(environmentNames.jwtAudience).split(/\s+/).filter(Boolean);
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
  /** Items one list request may read (page and count each); unset means core/db/query.ts readBudget. */
  get listScanBudget(): number | undefined {
    const value = Number(optional(environmentNames.listScanBudget));
    return Number.isInteger(value) && value > 0 ? value : undefined;
  },
  /** Stripe credentials and (locally) the payment simulator's URL; see core/billing/stripe.ts. */
  get stripe(): { secretKey?: string; webhookSecret?: string; apiUrl?: string } {
    return {
      secretKey: optional(environmentNames.stripeSecretKey),
      webhookSecret: optional(environmentNames.stripeWebhookSecret),
      apiUrl: optional(environmentNames.stripeApiUrl),
    };
  },
  /** Whether anyone signed in may create an organization (`POST /organizations`); a stage setting, off by default. */
  get selfServiceSignUp(): boolean {
    return optional(environmentNames.selfServiceSignUp) === "true";
  },
  /** Where clients reach the API; used in the agent card and webhook URLs. */
  get publicBaseUrl(): string {
    return optional(environmentNames.publicBaseUrl) ?? "http://127.0.0.1:3000";
  },
};

/**
 * An AWS SDK client's options: in AWS none (the region and the role's credentials come from the environment); with an
 * emulator's endpoint (the local stack, the tests), that endpoint, a region and credentials the emulator ignores.
 */
export function sdkClientOptions(endpoint: string | undefined): {
  endpoint?: string;
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
} {
  if (!endpoint) return {};
  return {
    endpoint,
    region: process.env.AWS_REGION ?? "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  };
}

function optional(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

function required(name: string): string {
  const value = optional(name);
  if (value === undefined) throw new Error(`Missing environment variable ${name}`);
  return value;
}
