import type { FieldError } from "#core/shared/validation";

/**
 * Base of every error meant for the caller. Core knows no HTTP: the edge maps
 * each stable `code` to a problem type and status (core/http/problem.ts).
 * Anything thrown that is not a DomainError is a bug and reaches clients as a
 * generic 500.
 */
export abstract class DomainError extends Error {
  abstract readonly code: string;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input that fails validation; `errors` name each offending field by JSON Pointer. */
export class ValidationError extends DomainError {
  readonly code = "validation_failed";
  constructor(
    message: string,
    readonly errors: (FieldError | RequestFieldError)[] = [],
  ) {
    super(message);
  }
}

/**
 * An offending request parameter named by the domain: which part of the
 * request carries it and its name. The HTTP edge writes it as a JSON pointer
 * under /query or /path; other callers (A2A, the CLI) read the field by name.
 */
export interface RequestFieldError {
  in: "path" | "query";
  field: string;
  detail: string;
}

/** Field errors as JSON pointers (RFC 6901): request parameters become `/<in>/<field>`. */
export function asPointers(errors: readonly (FieldError | RequestFieldError)[]): FieldError[] {
  return errors.map((error) =>
    "pointer" in error ? error : { pointer: `/${error.in}/${error.field}`, detail: error.detail },
  );
}

/** Credentials missing (`reason` absent) or present but invalid. */
export class UnauthorizedError extends DomainError {
  readonly code = "unauthorized";
  constructor(
    message: string,
    readonly reason: "missing" | "invalid" = "invalid",
  ) {
    super(message);
  }
}

/** A valid credential without the permission the operation needs. */
export class ForbiddenError extends DomainError {
  readonly code = "forbidden";
}

/** The resource does not exist in the caller's organization (other tenants' ids included). */
export class NotFoundError extends DomainError {
  readonly code = "not_found";
  constructor(resource: string, id: string) {
    super(`${resource} ${id} was not found.`);
  }
}

/** The request conflicts with the resource's current state (stale version, in-flight idempotent request). */
export class ConflictError extends DomainError {
  readonly code = "conflict";
}

/** Well-formed request that cannot be processed as sent (idempotency key reused with another payload). */
export class UnprocessableError extends DomainError {
  readonly code = "unprocessable";
}

/** Where 10DLC registration is required, the message has no sender number attached to an approved campaign. */
export class SenderNotRegisteredError extends DomainError {
  readonly code = "sender_not_registered";
}

/** The wallet cannot pay for the operation. */
export class PaymentRequiredError extends DomainError {
  readonly code = "payment_required";
}

/** A rate-limit partition is exhausted for the current window. */
export class RateLimitedError extends DomainError {
  readonly code = "rate_limited";
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** The carrier (telephony provider) refused or could not be reached for an operation that needs it now; nothing was changed. */
export class CarrierUnavailableError extends DomainError {
  readonly code = "carrier_unavailable";
}

/** The payment provider refused, could not be reached, or is not configured on this stage; nothing was charged. */
export class PaymentProviderUnavailableError extends DomainError {
  readonly code = "payment_provider_unavailable";
}

/** E-mail could not be sent (SES refused or is not configured on this stage); nothing was stored. */
export class MailUnavailableError extends DomainError {
  readonly code = "mail_unavailable";
}

/** The request ran out of time before it finished (it stops before its function's timeout): retrying may succeed. */
export class TimedOutError extends DomainError {
  readonly code = "timed_out";
}

/**
 * A stored item this code cannot read back (corrupt, or written in a format it does not know). Not the caller's
 * fault, so a 500, but a named one: the edge logs it and answers what cannot be read rather than a bare failure, and
 * a sweep over many items passes over it.
 */
export class UnreadableItemError extends DomainError {
  readonly code = "unreadable_item";
}
