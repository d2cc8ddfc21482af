import { ValidationError } from "#core/errors";

/** Refuses a request without the `Idempotency-Key` header (operations where a retry must never act twice, e.g. credits). */
export function requireIdempotencyKey(headers: Record<string, string | undefined>): void {
  if (!headers["idempotency-key"]) {
    throw new ValidationError("This operation needs an Idempotency-Key header.", [
      {
        pointer: "/header/Idempotency-Key",
        detail: "Send a unique key (e.g. a UUID) and reuse it only to retry the same request.",
      },
    ]);
  }
}

/**
 * Headers on every answer: bodies carry personal data, so no shared or
 * browser cache may keep them, and no browser may sniff a JSON or CSV body
 * into something executable.
 */
export const securityHeaders = { "cache-control": "no-store", "x-content-type-options": "nosniff" } as const;
