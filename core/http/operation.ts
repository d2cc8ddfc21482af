import type * as v from "valibot";
import type { Permission } from "#core/auth/actor";
import type { HttpMethod } from "#stacks/definitions";

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySchema = v.GenericSchema<any, any>;

/**
 * Who may call an operation.
 * - `public`: no credential (IP rate-limit partition);
 * - `bearer`: an organization API key or user JWT;
 * - `bearerOrSource`: either of those, or a lead source key (intake routes).
 */
export type AuthMode = "public" | "bearer" | "bearerOrSource";

/** Problem statuses an operation documents besides the ones every route can answer. */
export type ProblemStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 502;

/**
 * One HTTP operation of the contract: the single source for validation (the
 * Middy chain), the OpenAPI document and the route table test.
 */
export interface Operation<
  TAuth extends AuthMode = AuthMode,
  TBody extends AnySchema | undefined = AnySchema | undefined,
  TQuery extends AnySchema | undefined = AnySchema | undefined,
  TParams extends AnySchema | undefined = AnySchema | undefined,
> {
  operationId: string;
  method: HttpMethod;
  /** API Gateway path template, e.g. `/automations/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: TAuth;
  /** Permission the actor needs; omitted for public operations. */
  permission?: Permission;
  body?: TBody;
  /** Whether a body must be sent (default true when `body` is set). */
  bodyRequired?: boolean;
  query?: TQuery;
  params?: TParams;
  success: {
    status: 200 | 201 | 202 | 204;
    description: string;
    /** Documentation schema of the response body. */
    schema?: AnySchema;
    /** Defaults to application/json. */
    contentType?: string;
    /** Raw JSON Schema when the body is not described by valibot (e.g. the OpenAPI document itself). */
    jsonSchema?: Record<string, unknown>;
  };
  problems: ProblemStatus[];
  /** Honours the `Idempotency-Key` header (replays the stored answer for 24 h). */
  idempotent?: boolean;
  /** Example request body for the contract. */
  example?: unknown;
}

/** Declares an operation with its types inferred from the schemas. */
export function defineOperation<
  TAuth extends AuthMode,
  TBody extends AnySchema | undefined = undefined,
  TQuery extends AnySchema | undefined = undefined,
  TParams extends AnySchema | undefined = undefined,
>(operation: Operation<TAuth, TBody, TQuery, TParams>): Operation<TAuth, TBody, TQuery, TParams> {
  return operation;
}
