import { STATUS_CODES } from "node:http";
import { DomainError, RateLimitedError, UnauthorizedError, ValidationError, asPointers } from "#core/errors";

/** Errors only the HTTP edge can raise: they describe the request, not the domain. */
export class MethodNotAllowedError extends DomainError {
  readonly code = "method_not_allowed";
  constructor(
    method: string,
    readonly allow: string[],
  ) {
    super(`The method ${method} is not allowed on this resource; use ${allow.join(", ")}.`);
  }
}
export class RouteNotFoundError extends DomainError {
  readonly code = "route_not_found";
}
export class PayloadTooLargeError extends DomainError {
  readonly code = "payload_too_large";
}
export class UnsupportedMediaTypeError extends DomainError {
  readonly code = "unsupported_media_type";
}

/** The one table from stable error codes to HTTP statuses. */
const statusByCode: Record<string, number> = {
  validation_failed: 400,
  unauthorized: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  route_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  sender_not_registered: 422,
  rate_limited: 429,
  carrier_unavailable: 502,
  payment_provider_unavailable: 502,
  mail_unavailable: 502,
  timed_out: 503,
  unreadable_item: 500,
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  [extension: string]: unknown;
}

export interface ProblemResponse {
  problem: Problem;
  headers: Record<string, string>;
}

/** Problem body for an error the gateway itself answers (no Lambda ran). */
export function gatewayProblem(status: number, detail: string, instance: string): Problem {
  return { ...base(status, instance), detail };
}

/** Realm of the Bearer challenge sent with every 401. */
export const authRealm = "lead-messaging-api";

/**
 * Maps an error to an RFC 9457 problem. Only DomainErrors are described to the
 * client; anything else is a bug and gets a generic 500 with a correlation id
 * that matches the log line.
 */
export function toProblem(error: unknown, instance: string, correlationId: string): ProblemResponse {
  if (!(error instanceof DomainError)) {
    return {
      problem: {
        ...base(500, instance),
        detail: "The server could not complete the request. Quote the correlation id when reporting this.",
        correlationId,
      },
      headers: {},
    };
  }
  const status = statusByCode[error.code] ?? 500;
  const problem: Problem = { ...base(status, instance), detail: error.message };
  // A described 500 (an item that cannot be read) is ours too: the id matches the log line, as for any other 500.
  if (status === 500) problem.correlationId = correlationId;
  const headers: Record<string, string> = {};
  if (error instanceof ValidationError && error.errors.length > 0) problem.errors = asPointers(error.errors);
  if (error instanceof UnauthorizedError) {
    headers["www-authenticate"] =
      error.reason === "missing"
        ? `Bearer realm="${authRealm}"`
        : `Bearer realm="${authRealm}", error="invalid_token", error_description="${error.message.replace(/"/g, "'")}"`;
  }
  if (error instanceof RateLimitedError)
    headers["retry-after"] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  if (error instanceof MethodNotAllowedError) headers.allow = error.allow.join(", ");
  return { problem, headers };
}

function base(status: number, instance: string) {
  return { type: "about:blank", title: STATUS_CODES[status] ?? "Error", status, instance };
}
