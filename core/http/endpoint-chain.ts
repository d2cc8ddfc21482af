import middy, { type MiddlewareObj, type Request } from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import type { SignedInIdentity } from "#core/http/authenticate";
import { DomainError, RateLimitedError, TimedOutError } from "#core/errors";
import { authorizationRefusal, type Credentials } from "#core/http/credentials";
import type { AnySchema, AuthMode, Operation, SuccessAnswer } from "#core/http/operation";
import { toProblem } from "#core/http/problem";
import { parseBody, validate } from "#core/http/request-input";
import { HttpResponse, toResult, withProtectiveHeaders } from "#core/http/response";
import { logger, withCorrelationId } from "#core/observability/index";
import { consumeRateLimit, describePartition, rateLimitPolicy, type RateLimitDecision } from "#core/rate-limit/index";
import * as Idempotency from "#core/idempotency/index";
import {
  AnsweredBefore,
  assertValidKey,
  fingerprint,
  type KeyedRequest,
  type StoredResponse,
} from "#core/idempotency/index";
import type { PlannedRead } from "#core/db/items";
import type { TransactItem } from "#core/db/transact";
import { httpLimits } from "#stacks/definitions";

type Output<T> = T extends AnySchema ? v.InferOutput<T> : undefined;

/**
 * What an implementation answers: the output of the operation's success schema (sent as JSON with the declared
 * status), nothing for a 204, or an explicit `HttpResponse`. An operation whose body no valibot schema describes
 * (TwiML, CSV, HTML, the contract itself) may answer anything its handler chooses.
 */
export type EndpointAnswer<TSuccess extends SuccessAnswer> =
  | HttpResponse
  | (TSuccess extends { schema: infer TSchema extends AnySchema }
      ? v.InferOutput<TSchema>
      : TSuccess extends { status: 204 }
        ? void
        : unknown);

/** What an endpoint implementation receives: validated input and the caller. */
export interface EndpointInput<TAuth extends AuthMode, TBody, TQuery, TParams> {
  actor: TAuth extends "public" ? undefined : TAuth extends "identity" ? Actor | undefined : Actor;
  body: Output<TBody>;
  query: Output<TQuery>;
  params: Output<TParams>;
  /** The signed-in person (`identity` operations; any user token elsewhere). */
  identity?: SignedInIdentity;
  headers: Record<string, string | undefined>;
  /** Caller address as API Gateway saw it. */
  sourceIp: string;
  requestId: string;
  event: APIGatewayProxyEventV2;
  /**
   * Resolves once admitted by the rate limit (throws the 429 otherwise); settled unless the endpoint counts its limit while reading
   * (`rateLimitWhileReading`): then call it before the first write. `resourceId()`: the id fixed by the Idempotency-Key (a retry finds it).
   */
  admitted: () => Promise<void>;
  resourceId: () => Promise<string | undefined>;
  /**
   * `answerWithWrite` operations: the Idempotency-Key's answer to `answer`, as a write for the implementation's own
   * transaction (undefined without a key). A key whose write is refused is answered from its record.
   */
  answerWrite: (answer: EndpointAnswer<SuccessAnswer>) => TransactItem | undefined;
  /**
   * `answerWithWrite` operations: a read for the implementation's first batch that refuses a key used before, so a
   * replay or a 422 is answered before anything is written (undefined without a key).
   */
  answeredRead: () => PlannedRead<void> | undefined;
}

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
type AnyOperation = Operation<
  AuthMode,
  AnySchema | undefined,
  AnySchema | undefined,
  AnySchema | undefined,
  SuccessAnswer
>;

/** Per-invocation state the middlewares hand to each other and to the implementation. */
interface ChainState {
  credentials?: Credentials;
  rateLimit?: RateLimitDecision;
  /** A rate-limit write running in parallel with the request's reads; `settleRateLimit` waits for it. */
  pendingRateLimit?: Promise<RateLimitDecision>;
  body?: unknown;
  query?: unknown;
  params?: unknown;
  /** Set when this request claimed an Idempotency-Key. */
  idempotency?: { organizationId: string; scope: string; key: string; resourceId: string };
  /**
   * An Idempotency-Key claim running beside the request's reads (`rateLimitWhileReading`): the stored answer when the
   * key was used before, undefined once claimed. `admitted()` and the handler wait for it.
   */
  pendingClaim?: Promise<StoredResponse | undefined>;
  /** `answerWithWrite`: the request's key, whose answer the implementation writes with its resource. */
  keyedRequest?: KeyedRequest;
}
const chainState = new WeakMap<Event, ChainState>();
const stateOf = (request: { event: Event }): ChainState => {
  let state = chainState.get(request.event);
  if (!state) chainState.set(request.event, (state = {}));
  return state;
};

type ChainMiddleware = MiddlewareObj<Event, Result, Error, Context>;

export interface EndpointOptions {
  /**
   * A request this accepts (a provider webhook whose signature verifies) is not
   * counted against any rate-limit partition; everything else counts as usual.
   */
  exemptFromRateLimit?: (event: Event) => boolean | Promise<boolean>;
  /** The journey a request continues (a signed provider callback's), instead of starting one with its request id. */
  correlationIdOf?: (event: Event) => string | undefined;
  /**
   * The implementation reads before it writes and awaits `admitted()` before its first write, so the rate-limit
   * write, and then an Idempotency-Key claim, run in parallel with those reads (two sequential round trips fewer with a
   * key). A key used before answers its stored response and `admitted()` throws, so nothing is written twice. Safe
   * (GET) operations always count their limit this way.
   */
  rateLimitWhileReading?: boolean;
  /**
   * With an Idempotency-Key, nothing is claimed before and nothing completed after: the implementation writes the
   * key's answer in the transaction that stores its resource (`answerWrite`), so both are stored or neither. A request
   * that then fails (its write refused by the key's record, a check that refuses) is answered from the record when the
   * key was used with this payload (a 422 for another payload). Two round trips fewer than a claim (issue 27).
   */
  answerWithWrite?: boolean;
}

/** Reads a request's credential the way the operations of one endpoint builder accept it (core/http/credentials). */
export type CredentialReader<TAccepted extends AuthMode> = (auth: TAccepted, event: Event) => Promise<Credentials>;

/**
 * The endpoint builder of the operations whose auth mode `readCredentials` reads: `endpoint` (every mode) and
 * `publicEndpoint` (public operations only, so their bundles carry no bearer or source-key lookup).
 */
export function endpointReading<TAccepted extends AuthMode>(readCredentials: CredentialReader<TAccepted>) {
  /**
   * Builds the Lambda handler of one operation: the single Middy chain every
   * endpoint shares (authenticate → rate limit → authorize → parse and validate →
   * implementation), with every error answered as application/problem+json. A
   * safe (read-only) request counts its rate limit in parallel with its work.
   */
  return function endpoint<
    TAuth extends TAccepted,
    TBody extends AnySchema | undefined,
    TQuery extends AnySchema | undefined,
    TParams extends AnySchema | undefined,
    TSuccess extends SuccessAnswer,
  >(
    operation: Operation<TAuth, TBody, TQuery, TParams, TSuccess>,
    implementation: (input: EndpointInput<TAuth, TBody, TQuery, TParams>) => Promise<EndpointAnswer<TSuccess>>,
    options: EndpointOptions = {},
  ) {
    const credentialsOf = (event: Event) => readCredentials(operation.auth, event);
    const generic = operation as unknown as AnyOperation;
    const chain = middy<Event, Result, Error, Context>({
      // Stop before Lambda's timeout would kill the invocation (a bare 500 from API Gateway): a problem+json 503.
      timeoutEarlyInMillis: httpLimits.earlyTimeoutMs,
      timeoutEarlyResponse: () => {
        throw new TimedOutError(
          "The request ran out of time before it finished. Part of its work may be done: retry it (with the same Idempotency-Key where it takes one).",
        );
      },
    })
      .use(problemResponses())
      .use(rateLimitHeaders())
      .use(authentication(generic, options, credentialsOf))
      .use(authorization(generic))
      .use(requestValidation(generic));
    if (generic.idempotent) chain.use(idempotentReplay(options));
    const handler = chain.handler(async (event) => {
      const state = stateOf({ event });
      const input = {
        actor: state.credentials?.actor,
        body: state.body,
        query: state.query,
        params: state.params,
        identity: state.credentials?.identity,
        headers: event.headers ?? {},
        sourceIp: event.requestContext.http.sourceIp,
        requestId: event.requestContext.requestId,
        event,
        admitted: () => settleAdmission(state),
        resourceId: () => settleAdmission(state).then(() => state.idempotency?.resourceId),
        answerWrite: (answer: EndpointAnswer<SuccessAnswer>) =>
          state.keyedRequest &&
          Idempotency.answerWrite(state.keyedRequest, storedResponseOf(toResult(generic, answer as never))),
        answeredRead: () => state.keyedRequest && Idempotency.answeredRead(state.keyedRequest),
      } as EndpointInput<TAuth, TBody, TQuery, TParams>;
      const outcome = implementation(input);
      // Its reads may run beside the rate-limit write (safe requests, rateLimitWhileReading): over the limit, the 429
      // wins; then beside the Idempotency-Key claim: a key used before answers its stored response, whatever the reads found.
      outcome.catch(() => undefined);
      await settleRateLimit(state);
      const replay = await state.pendingClaim;
      if (replay) return replayed(replay);
      try {
        return toResult(generic, await outcome);
      } catch (error) {
        if (error instanceof AnsweredBefore) return replayed(error.response);
        // `answerWithWrite`: a key used before answers its stored response, whatever refused this request (its own
        // transaction, on the key's condition, when another request with it committed first). A failure of that look
        // itself leaves this request's own answer standing.
        const stored =
          state.keyedRequest &&
          (await Idempotency.storedAnswer(state.keyedRequest).catch((lookFailed: unknown) => {
            throw lookFailed instanceof DomainError ? lookFailed : error;
          }));
        if (stored) return replayed(stored);
        throw error;
      }
    });
    return requestLog(handler, options);
  };
}

/**
 * One structured log line per request (route, status, latency, organization,
 * request id, cold start), and the request id as the correlation id of
 * everything it queues and records. The query string is never logged.
 */
function requestLog(handler: (event: Event, context: Context) => Promise<Result>, options: EndpointOptions) {
  return (event: Event, context: Context): Promise<Result> => {
    const requestId = event.requestContext?.requestId ?? context.awsRequestId;
    const correlationId = options.correlationIdOf?.(event) ?? requestId;
    return withCorrelationId(correlationId, async () => {
      const started = Date.now();
      logger.addContext(context);
      const result = withProtectiveHeaders(await handler(event, context));
      logger.info("request", {
        route: event.routeKey,
        status: result.statusCode,
        latencyMs: Date.now() - started,
        organizationId: chainState.get(event)?.credentials?.actor?.organizationId,
        requestId,
        correlationId,
      });
      return result;
    });
  };
}

/** Outermost: any error becomes a problem response; unexpected ones are logged with a correlation id. */
function problemResponses(): ChainMiddleware {
  return {
    name: "problemResponses",
    onError: async (request) => {
      // Over the limit beats any other answer (as when the limit is counted first).
      await settleRateLimit(stateOf(request)).catch((error: unknown) => {
        request.error = error as Error;
      });
      const correlationId = request.event.requestContext?.requestId ?? request.context?.awsRequestId ?? "unknown";
      const { problem, headers } = toProblem(request.error, request.event.rawPath ?? "/", correlationId);
      if (problem.status >= 500) {
        const error = request.error as Error;
        console.error(JSON.stringify({ level: "error", correlationId, message: error?.message, stack: error?.stack }));
      }
      request.response = {
        statusCode: problem.status,
        headers: { "content-type": "application/problem+json", ...headers },
        body: JSON.stringify(problem),
      };
      addRateLimitHeaders(request);
    },
  };
}

/** `RateLimit-Policy` / `RateLimit` (IETF httpapi draft) on every answer that counted against a partition. */
function rateLimitHeaders(): ChainMiddleware {
  return { name: "rateLimitHeaders", after: async (request) => addRateLimitHeaders(request) };
}

function addRateLimitHeaders(request: Request<Event, Result, Error, Context>): void {
  const decision = stateOf(request).rateLimit;
  if (!decision || !request.response) return;
  const policy = decision.partition.kind;
  request.response.headers = {
    ...request.response.headers,
    "ratelimit-policy": `"${policy}";q=${decision.limit};w=${rateLimitPolicy.windowSeconds}`,
    ratelimit: `"${policy}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

/**
 * Resolves the credential, counts the request against its partition (spec 8:
 * invalid or missing credentials count against the IP address), then refuses
 * what is over the limit (429) or not authenticated (401). A request the
 * endpoint exempts (a verified carrier callback) is not counted at all.
 */
function authentication(
  operation: AnyOperation,
  options: EndpointOptions,
  credentialsOf: (event: Event) => Promise<Credentials>,
): ChainMiddleware {
  return {
    name: "authentication",
    before: async (request) => {
      const state = stateOf(request);
      const exempt = (await options.exemptFromRateLimit?.(request.event)) ?? false;
      // A credential is counted once it is known: a valid key in its own partition (a key behind a shared address
      // flooded with bad ones, an office NAT, is not refused for them), an unknown one on the caller's IP, after its
      // one read (a warm instance remembers it unknown for 30 s, core/http/authenticate.ts).
      const credentials = await credentialsOf(request.event);
      state.credentials = credentials;
      if (exempt) {
        if (credentials.error) throw credentials.error;
        return;
      }
      const decision = consumeRateLimit(credentials.partition);
      if ((isSafe(operation) || options.rateLimitWhileReading) && !credentials.error) {
        // One sequential round trip instead of two: the read runs while the window is counted (settleRateLimit).
        state.pendingRateLimit = decision;
        decision.catch(() => undefined);
        return;
      }
      applyRateLimit(state, await decision);
      if (credentials.error) throw credentials.error;
    },
  };
}

/**
 * A request that only reads (RFC 9110 safe: GET), so its implementation may run before the rate-limit decision is
 * known and be dropped when over the limit. `GET /leads/intake` (source credentials) stores a lead: never safe.
 */
function isSafe(operation: AnyOperation): boolean {
  return operation.method === "GET" && operation.auth !== "bearerOrSource";
}

function applyRateLimit(state: ChainState, decision: RateLimitDecision): void {
  state.rateLimit = decision;
  if (!decision.allowed) {
    throw new RateLimitedError(
      `The ${describePartition(decision.partition)} rate limit of ${decision.limit} requests per ${rateLimitPolicy.windowSeconds} seconds is exceeded.`,
      decision.resetSeconds,
    );
  }
}

/** Waits for a rate-limit write still running beside the request's reads and refuses it over the limit (any number of callers). */
async function settleRateLimit(state: ChainState): Promise<void> {
  if (state.pendingRateLimit) applyRateLimit(state, await state.pendingRateLimit);
}

/** `admitted()`: the rate limit, then the Idempotency-Key claim; a request answered by a stored response writes nothing. */
async function settleAdmission(state: ChainState): Promise<void> {
  await settleRateLimit(state);
  if (await state.pendingClaim)
    throw new Error("This Idempotency-Key was used before: the request is answered by its stored response.");
}

/** A valid credential without the operation's permission is a 403. */
function authorization(operation: AnyOperation): ChainMiddleware {
  return {
    name: "authorization",
    before: async (request) => {
      const refused = authorizationRefusal(operation, stateOf(request).credentials);
      if (refused) throw refused;
    },
  };
}

/** Parses the JSON body (size and media type first) and validates body, query and path with the operation's schemas. */
function requestValidation(operation: AnyOperation): ChainMiddleware {
  return {
    name: "requestValidation",
    before: async (request) => {
      const state = stateOf(request);
      const event = request.event;
      if (operation.body) state.body = await parseBody(operation, request);
      if (operation.query) state.query = validate(operation.query, event.queryStringParameters ?? {}, "/query");
      if (operation.params) state.params = validate(operation.params, event.pathParameters ?? {}, "/path");
    },
  };
}

/** What a key's request sent: the same key with another fingerprint is a 422. */
const payloadOf = (event: Event) => fingerprint({ query: event.rawQueryString ?? "", body: event.body ?? "" });

/** What a key stores of a successful answer (the rate-limit headers are the replay's own). */
function storedResponseOf(response: Result): StoredResponse {
  const headers = Object.fromEntries(
    Object.entries(response.headers ?? {})
      .filter(([name]) => !name.startsWith("ratelimit"))
      .map(([name, value]) => [name, String(value)]),
  );
  return { status: response.statusCode ?? 200, headers, body: String(response.body ?? "") };
}

/** A stored response, answered again. */
const replayed = ({ status, headers, body }: StoredResponse): Result => ({
  statusCode: status,
  headers: { ...headers, "idempotent-replayed": "true" },
  body,
});

/**
 * Honours `Idempotency-Key` on operations that declare `idempotent`: the first
 * request claims the key, a repeat gets the stored answer (see core/idempotency).
 * Only successful answers are stored; a failed request frees its key.
 */
function idempotentReplay(options: EndpointOptions): ChainMiddleware {
  const release = async (request: Request<Event, Result, Error, Context>) => {
    const claim = stateOf(request).idempotency;
    if (claim) await Idempotency.release(claim.organizationId, claim.scope, claim.key);
  };
  /** Claims the key once the request is admitted: undefined when claimed, the stored response when it was used before. */
  const claimKey = async (
    request: Request<Event, Result, Error, Context>,
    organizationId: string,
    key: string,
  ): Promise<StoredResponse | undefined> => {
    const state = stateOf(request);
    // The claim is a write: only an admitted request makes it (and a replay is answered only within the limit).
    await settleRateLimit(state);
    const payload = payloadOf(request.event);
    const scope = request.event.routeKey;
    // The claim lasts as long as this invocation can run: a request killed by its timeout frees the key then.
    const claim = await Idempotency.claim(organizationId, scope, key, payload, {
      remainingMs: request.context.getRemainingTimeInMillis?.(),
    });
    if (claim.kind === "replay") return claim.response;
    state.idempotency = { organizationId, scope, key, resourceId: claim.resourceId };
    return undefined;
  };
  return {
    name: "idempotentReplay",
    before: async (request) => {
      const state = stateOf(request);
      const key = request.event.headers?.["idempotency-key"];
      const organizationId = state.credentials?.actor?.organizationId;
      if (!key || !organizationId) return;
      if (options.answerWithWrite) {
        // Nothing is written here: the implementation stores the key's answer with its resource.
        assertValidKey(key);
        const keyed = { organizationId, scope: request.event.routeKey, idempotencyKey: key };
        state.keyedRequest = { ...keyed, payloadHash: payloadOf(request.event) };
        return;
      }
      const claiming = claimKey(request, organizationId, key);
      if (options.rateLimitWhileReading) {
        // The implementation reads first and writes only after `admitted()`: the claim runs beside its reads.
        state.pendingClaim = claiming;
        claiming.catch(() => undefined);
        return;
      }
      const stored = await claiming;
      if (!stored) return;
      request.response = replayed(stored);
      addRateLimitHeaders(request);
      return request.response;
    },
    after: async (request) => {
      const claim = stateOf(request).idempotency;
      const response = request.response;
      if (!claim || !response) return;
      if ((response.statusCode ?? 200) >= 300) return release(request);
      await Idempotency.complete(claim.organizationId, claim.scope, claim.key, storedResponseOf(response));
    },
    onError: async (request) => release(request),
  };
}
