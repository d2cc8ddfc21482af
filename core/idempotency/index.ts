import { createHash } from "node:crypto";
import { conditionally, table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { ConflictError, UnprocessableError, ValidationError } from "#core/errors";
import { newId } from "#core/shared/ids";

/** How long a key is remembered. */
export const idempotencyTtlSeconds = 24 * 60 * 60;

/** The longest an API function may run (API Gateway's HTTP API integration limit): the in-flight window when a request's remaining time is unknown. */
export const maxRequestMs = 30_000;

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * `resourceId`: the id the request gives what it creates, fixed with the key's first claim, so a retry that takes
 * over the key of a request that never finished (killed, crashed, failed after its write) creates the same id and
 * finds the first resource instead of making a second one.
 */
export type IdempotencyClaim = { kind: "claimed"; resourceId: string } | { kind: "replay"; response: StoredResponse };

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
 * Powertools' idempotency utility (in_progress_expiry_timestamp), and keeps the
 * claim's `resourceId`: whatever the first request stored under that id before
 * it died is found and answered, never created twice. A completed answer is
 * kept for 24 h.
 */
export const Idempotency = {
  async claim(
    organizationId: string,
    scope: string,
    idempotencyKey: string,
    payloadHash: string,
    options: ClaimOptions = {},
  ): Promise<IdempotencyClaim> {
    assertValidKey(idempotencyKey);
    const key = keys.idempotency(organizationId, scope, idempotencyKey);
    const now = options.now ?? Date.now();
    const inFlightUntil = now + Math.max(0, options.remainingMs ?? maxRequestMs);
    const expiresAt = Math.floor(now / 1000) + idempotencyTtlSeconds;
    const resourceId = newId();
    const nowValues = {
      ":now": Math.floor(now / 1000),
      ":nowMs": now,
      ":inFlight": "InFlight",
      ":payloadHash": payloadHash,
    };
    // A first use, or a key whose record expired (not yet removed by TTL), or an abandoned claim of another payload: a new request.
    const fresh = await conditionally(
      table.put({
        Item: {
          ...key,
          entity: entities.idempotency,
          state: "InFlight",
          payloadHash,
          resourceId,
          inFlightUntil,
          expiresAt,
        },
        ConditionExpression:
          "attribute_not_exists(pk) OR expiresAt < :now OR (#state = :inFlight AND inFlightUntil < :nowMs AND payloadHash <> :payloadHash)",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: nowValues,
      }),
    );
    if (fresh) return { kind: "claimed", resourceId };
    // The same request again, whose owner can no longer be running (or failed): the retry resumes it with its resource id.
    const resumed = await conditionally(
      table.update({
        Key: key,
        UpdateExpression: "SET inFlightUntil = :inFlightUntil, resourceId = if_not_exists(resourceId, :resourceId)",
        ConditionExpression:
          "#state = :inFlight AND inFlightUntil < :nowMs AND payloadHash = :payloadHash AND expiresAt >= :now",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ...nowValues, ":inFlightUntil": inFlightUntil, ":resourceId": resourceId },
        ReturnValues: "ALL_NEW",
      }),
    );
    if (resumed) return { kind: "claimed", resourceId: String(resumed.Attributes?.resourceId) };
    const { Item } = await table.get({ Key: key, ConsistentRead: true });
    if (!Item) throw new ConflictError("A request with this Idempotency-Key is being processed; retry shortly.");
    if (Item.payloadHash !== payloadHash) {
      throw new UnprocessableError("This Idempotency-Key was already used with a different request payload.");
    }
    if (Item.state !== "Completed")
      throw new ConflictError("A request with this Idempotency-Key is still being processed; retry shortly.");
    return { kind: "replay", response: Item.response as StoredResponse };
  },

  async complete(
    organizationId: string,
    scope: string,
    idempotencyKey: string,
    response: StoredResponse,
  ): Promise<void> {
    await table.update({
      Key: keys.idempotency(organizationId, scope, idempotencyKey),
      UpdateExpression: "SET #state = :completed, #response = :response REMOVE inFlightUntil",
      ExpressionAttributeNames: { "#state": "state", "#response": "response" },
      ExpressionAttributeValues: { ":completed": "Completed", ":response": response },
    });
  },

  /**
   * Frees the key after a failed request, so the client can retry with it. The record stays, claimable at once: a
   * request that failed after its write (the resource stored, a later step refused) is resumed by the retry with the
   * same resource id, which finds the stored resource rather than creating another.
   */
  async release(organizationId: string, scope: string, idempotencyKey: string): Promise<void> {
    await conditionally(
      table.update({
        Key: keys.idempotency(organizationId, scope, idempotencyKey),
        UpdateExpression: "SET inFlightUntil = :released",
        ConditionExpression: "#state = :inFlight",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":released": 0, ":inFlight": "InFlight" },
      }),
    );
  },
};
