import { createHash } from "node:crypto";
import { table, isConditionFailed } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { ConflictError, UnprocessableError, ValidationError } from "#core/errors";

/** How long a key is remembered. */
export const idempotencyTtlSeconds = 24 * 60 * 60;

/** The longest an API function may run (API Gateway's HTTP API integration limit): the in-flight window when a request's remaining time is unknown. */
export const maxRequestMs = 30_000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyClaim = { kind: "claimed" } | { kind: "replay"; response: StoredResponse };

/** Fingerprint of what the client sent: same key with another fingerprint is a 422. */
export function fingerprint(parts: unknown): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("base64url");
}

export function assertValidKey(idempotencyKey: string): void {
  if (!/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw new ValidationError("The Idempotency-Key header is not valid.", [
      { pointer: "/header/Idempotency-Key", detail: "Use 1 to 255 visible ASCII characters, e.g. a UUID." },
    ]);
  }
}

export interface ClaimOptions {
  /**
   * How long the claiming request can still be running (the Lambda context's
   * getRemainingTimeInMillis()): past it, the owner was killed (timeout, out of
   * memory, crash) and the in-flight claim may be taken over by a retry.
   */
  remainingMs?: number;
  /** The claiming request's clock (tests play a request that started earlier). */
  now?: number;
}

/**
 * Idempotent requests (IETF draft "The Idempotency-Key HTTP Header Field"):
 * the first request with a key claims it with a conditional write; a repeat
 * with the same payload gets the stored response, a repeat while the first is
 * in flight a 409, and the same key with another payload a 422.
 *
 * An in-flight claim carries `inFlightUntil` (epoch ms): when its owner can no
 * longer be running (its function timeout), a retry takes the key over, as in
 * Powertools' idempotency utility (in_progress_expiry_timestamp). A completed
 * answer is kept for 24 h.
 */
export const Idempotency = {
  async claim(organizationId: string, scope: string, idempotencyKey: string, payloadHash: string, options: ClaimOptions = {}): Promise<IdempotencyClaim> {
    assertValidKey(idempotencyKey);
    const key = keys.idempotency(organizationId, scope, idempotencyKey);
    const now = options.now ?? Date.now();
    try {
      await table.put({
        Item: {
          ...key,
          entity: entities.idempotency,
          state: "InFlight",
          payloadHash,
          inFlightUntil: now + Math.max(0, options.remainingMs ?? maxRequestMs),
          expiresAt: Math.floor(now / 1000) + idempotencyTtlSeconds,
        },
        // An expired record (not yet removed by TTL), or an in-flight claim whose owner can no longer be running, may be claimed again.
        ConditionExpression: "attribute_not_exists(pk) OR expiresAt < :now OR (#state = :inFlight AND inFlightUntil < :nowMs)",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":now": Math.floor(now / 1000), ":nowMs": now, ":inFlight": "InFlight" },
      });
      return { kind: "claimed" };
    } catch (error) {
      if (!(isConditionFailed(error))) throw error;
    }
    const { Item } = await table.get({ Key: key, ConsistentRead: true });
    if (!Item) throw new ConflictError("A request with this Idempotency-Key is being processed; retry shortly.");
    if (Item.payloadHash !== payloadHash) {
      throw new UnprocessableError("This Idempotency-Key was already used with a different request payload.");
    }
    if (Item.state !== "Completed") throw new ConflictError("A request with this Idempotency-Key is still being processed; retry shortly.");
    return { kind: "replay", response: Item.response as StoredResponse };
  },

  async complete(organizationId: string, scope: string, idempotencyKey: string, response: StoredResponse): Promise<void> {
    await table.update({
      Key: keys.idempotency(organizationId, scope, idempotencyKey),
      UpdateExpression: "SET #state = :completed, #response = :response REMOVE inFlightUntil",
      ExpressionAttributeNames: { "#state": "state", "#response": "response" },
      ExpressionAttributeValues: { ":completed": "Completed", ":response": response },
    });
  },

  /** Frees the key after a failed request, so the client can retry with it. */
  async release(organizationId: string, scope: string, idempotencyKey: string): Promise<void> {
    await table.delete({ Key: keys.idempotency(organizationId, scope, idempotencyKey) });
  },
};
