import { ValidationError } from "#core/errors";

/** Refuses a request without the `Idempotency-Key` header (operations where a retry must never act twice, e.g. credits). */
export function requireIdempotencyKey(headers: Record<string, string | undefined>): void {
  if (!headers["idempotency-key"]) {
    throw new ValidationError("This operation needs an Idempotency-Key header.", [
      { pointer: "/header/Idempotency-Key", detail: "Send a unique key (e.g. a UUID) and reuse it only to retry the same request." },
    ]);
  }
}
