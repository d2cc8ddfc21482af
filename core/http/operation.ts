import type * as v from "valibot";
import type { Permission } from "#core/auth/actor";
import type { HttpMethod, OperationId, RouteEntry } from "#stacks/definitions";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySchema = v.GenericSchema<any, any>;

/**
 * Who may call an operation.
 * - `public`: no credential (IP rate-limit partition);
 * - `bearer`: an organization API key or user JWT;
 * - `bearerOrSource`: either of those, or a lead source key (intake routes);
 * - `identity`: a verified user JWT, even one of no organization yet (accepting an invitation).
 */
export type AuthMode = "public" | "bearer" | "bearerOrSource" | "identity";

/** Problem statuses an operation documents besides the ones every route can answer. */
export type ProblemStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 502;

/** An operation's success answer, as the contract documents it. */
export interface SuccessAnswer {
  status: 200 | 201 | 202 | 204;
  description: string;
  /**
   * Schema of the response body: the contract documents it, and the implementation must return its output. Only the
   * contract reads it: a deployed function's bundle holds `undefined` here (stacks/bundle-plugins.mjs).
   */
  schema?: AnySchema;
  /** Defaults to application/json. */
  contentType?: string;
  /** Raw JSON Schema when the body is not described by valibot (e.g. the OpenAPI document itself). */
  jsonSchema?: Record<string, unknown>;
  /** Another success status the operation answers with the same body (e.g. 200 for a repeat of a create), and why. */
  alternateStatus?: { status: 200; description: string };
  /** Further media types the same status may answer with, and their schemas (e.g. `text/event-stream`). */
  alternativeContent?: Record<string, Record<string, unknown>>;
}

/**
 * One HTTP operation of the contract: the single source for validation (the
 * Middy chain), the OpenAPI document and the type of what its implementation answers.
 */
export interface Operation<
  TAuth extends AuthMode = AuthMode,
  TBody extends AnySchema | undefined = AnySchema | undefined,
  TQuery extends AnySchema | undefined = AnySchema | undefined,
  TParams extends AnySchema | undefined = AnySchema | undefined,
  TSuccess extends SuccessAnswer = SuccessAnswer,
> {
  operationId: string;
  /** From the route table (stacks/definitions.ts), keyed by `operationId`. */
  method: HttpMethod;
  /** API Gateway path template, e.g. `/automations/{id}`; from the route table like `method`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: TAuth;
  /** Permission the actor needs; omitted for public operations. */
  permission?: Permission;
  body?: TBody;
  /**
   * Contract-only JSON Schema of the request body, for an operation that reads its
   * body itself (not validated by the chain; e.g. JSON-RPC, whose errors are not problems).
   */
  bodyJsonSchema?: Record<string, unknown>;
  /** Whether a body must be sent (default true when `body` or `bodyJsonSchema` is set). */
  bodyRequired?: boolean;
  query?: TQuery;
  params?: TParams;
  /** The success answer; its type (status and schema) decides what the implementation may return (endpoint()). */
  success: TSuccess;
  problems: ProblemStatus[];
  /** Honours the `Idempotency-Key` header (replays the stored answer for 24 h). */
  idempotent?: boolean;
  /** Example request body for the contract (`undefined` in a deployed function's bundle, as `success.schema`). */
  example?: unknown;
}

/** What an operation states itself: everything but the method and path, which the route table holds. */
export type OperationSpec<
  TId extends OperationId,
  TAuth extends AuthMode,
  TBody extends AnySchema | undefined,
  TQuery extends AnySchema | undefined,
  TParams extends AnySchema | undefined,
  TSuccess extends SuccessAnswer,
> = Omit<Operation<TAuth, TBody, TQuery, TParams, TSuccess>, "operationId" | "method" | "path"> & { operationId: TId };

/**
 * The `defineOperation` of one operations module, bound to its group of the route table (stacks/definitions.ts):
 * it declares the operation of a route, with its types inferred from the schemas. Its `operationId` must be a key of
 * the group, whose method and path it serves: they are stated there only. Bound to the group, not the whole table, so
 * a handler's bundle carries only its module's routes.
 */
/* @__NO_SIDE_EFFECTS__ */
export function routedBy<TGroupId extends OperationId>(routes: Record<TGroupId, RouteEntry>) {
  return function defineOperation<
    TId extends TGroupId,
    TAuth extends AuthMode,
    TBody extends AnySchema | undefined = undefined,
    TQuery extends AnySchema | undefined = undefined,
    TParams extends AnySchema | undefined = undefined,
    TSuccess extends SuccessAnswer = SuccessAnswer,
  >(
    spec: OperationSpec<TId, TAuth, TBody, TQuery, TParams, TSuccess>,
  ): Operation<TAuth, TBody, TQuery, TParams, TSuccess> {
    const { method, path } = routes[spec.operationId];
    return { ...spec, method, path };
  };
}

/**
 * Declares an operation no route of the table serves: API Gateway's `$default` responder, and probes that test
 * the endpoint chain itself. It states its own method and path.
 */
/* @__NO_SIDE_EFFECTS__ */
export function defineUnroutedOperation<
  TAuth extends AuthMode,
  TBody extends AnySchema | undefined = undefined,
  TQuery extends AnySchema | undefined = undefined,
  TParams extends AnySchema | undefined = undefined,
  TSuccess extends SuccessAnswer = SuccessAnswer,
>(operation: Operation<TAuth, TBody, TQuery, TParams, TSuccess>): Operation<TAuth, TBody, TQuery, TParams, TSuccess> {
  return operation;
}
