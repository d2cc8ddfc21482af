import { createHash } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { IdempotencyEntity } from "#core/db/entities/idempotency";
import { computed, where } from "#core/db/expression";
import { conditionally, oneItem, table, type PlannedRead } from "#core/db/items";
import { ConflictError, UnprocessableError, ValidationError } from "#core/errors";
import { newId } from "#core/shared/ids";
import type { TransactItem } from "#core/db/transact";

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
 * A response as a record holds it: its body deflated (`deflatedBody`, binary), since issue 27. `POST /messages` writes
 * its answer (the message, ~1.3 KB of JSON, half of it nulls) in the message's transaction, where every started KB of
 * an item costs two write units; deflated it is well under 1 KB. Records written before hold `body` as text.
 */
type ResponseRecord = Omit<StoredResponse, "body"> & { body?: string; deflatedBody?: Uint8Array };

function responseRecord({ body, ...rest }: StoredResponse): ResponseRecord {
  return { ...rest, deflatedBody: deflateRawSync(body) };
}

function storedResponse(record: unknown): StoredResponse {
  const { deflatedBody, body, ...rest } = record as ResponseRecord;
  return { ...rest, body: deflatedBody ? inflateRawSync(deflatedBody).toString("utf8") : (body ?? "") };
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

/** A keyed request whose answer is written with its own write (`answerWrite`), with no claim before it. */
export interface KeyedRequest {
  organizationId: string;
  scope: string;
  idempotencyKey: string;
  payloadHash: string;
}

/** Where a key may be taken: a first use, an expired record (not yet removed by TTL), a claim whose owner can no longer run. */
const takeable = (now: number) =>
  where.any(
    where.new(),
    where.before("expiresAt", Math.floor(now / 1000)),
    where.all(where.equals("state", "InFlight"), where.before("inFlightUntil", now)),
  );

/** A keyed request whose key already holds an answer for this payload: the caller answers `response` again. */
export class AnsweredBefore extends Error {
  constructor(readonly response: StoredResponse) {
    super("This Idempotency-Key was answered before.");
  }
}

/**
 * What a key's record means for a request that writes its answer with its resource: the stored response for the same
 * payload; a 422 for another payload, a 409 while an older claim of it may still run; undefined when the key is free
 * (never used, expired or abandoned).
 */
function answerOf(request: KeyedRequest, Item: Record<string, unknown> | undefined, now: number) {
  if (!Item || Number(Item.expiresAt) < Math.floor(now / 1000)) return undefined;
  if (Item.state === "InFlight" && Number(Item.inFlightUntil) < now) return undefined;
  if (Item.payloadHash !== request.payloadHash) {
    throw new UnprocessableError("This Idempotency-Key was already used with a different request payload.");
  }
  if (Item.state !== "Completed")
    throw new ConflictError("A request with this Idempotency-Key is still being processed; retry shortly.");
  return storedResponse(Item.response);
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

export async function claim(
  organizationId: string,
  scope: string,
  idempotencyKey: string,
  payloadHash: string,
  options: ClaimOptions = {},
): Promise<IdempotencyClaim> {
  assertValidKey(idempotencyKey);
  const identity = { organizationId, scope, idempotencyKey };
  const now = options.now ?? Date.now();
  const nowSeconds = Math.floor(now / 1000);
  const inFlightUntil = now + Math.max(0, options.remainingMs ?? maxRequestMs);
  const expiresAt = nowSeconds + idempotencyTtlSeconds;
  const resourceId = newId();
  const abandoned = where.all(where.equals("state", "InFlight"), where.before("inFlightUntil", now));
  // A first use, or a key whose record expired (not yet removed by TTL), or an abandoned claim of another payload: a new request.
  const fresh = await conditionally(
    table.put(
      IdempotencyEntity.putAt(
        identity,
        { state: "InFlight", payloadHash, resourceId, inFlightUntil, expiresAt },
        {
          condition: where.any(
            where.new(),
            where.before("expiresAt", nowSeconds),
            where.all(abandoned, where.differs("payloadHash", payloadHash)),
          ),
        },
      ),
    ),
  );
  if (fresh) return { kind: "claimed", resourceId };
  // The same request again, whose owner can no longer be running (or failed): the retry resumes it with its resource id.
  const resumed = await conditionally(
    table.update({
      ...IdempotencyEntity.update(
        identity,
        { inFlightUntil, resourceId: computed.ifAbsent(resourceId) },
        {
          condition: where.all(
            abandoned,
            where.equals("payloadHash", payloadHash),
            where.atLeast("expiresAt", nowSeconds),
          ),
        },
      ),
      ReturnValues: "ALL_NEW",
    }),
  );
  if (resumed) return { kind: "claimed", resourceId: String(resumed.Attributes?.resourceId) };
  const Item = await IdempotencyEntity.get(identity, { consistent: true });
  if (!Item) throw new ConflictError("A request with this Idempotency-Key is being processed; retry shortly.");
  if (Item.payloadHash !== payloadHash) {
    throw new UnprocessableError("This Idempotency-Key was already used with a different request payload.");
  }
  if (Item.state !== "Completed")
    throw new ConflictError("A request with this Idempotency-Key is still being processed; retry shortly.");
  return { kind: "replay", response: storedResponse(Item.response) };
}

/**
 * The key's completed record with `response`, as one write of the request's own transaction (the answer is known
 * before the write: the resource's id is chosen first). The transaction commits the resource and its answer
 * together or neither, so no in-flight state exists: of two concurrent requests with one key, the first to commit
 * wins and the other fails on this write's condition, then answers what `storedAnswer` finds.
 */
export function answerWrite(request: KeyedRequest, response: StoredResponse, now = Date.now()): TransactItem {
  assertValidKey(request.idempotencyKey);
  const { organizationId, scope, idempotencyKey, payloadHash } = request;
  return {
    Put: IdempotencyEntity.putAt(
      { organizationId, scope, idempotencyKey },
      {
        state: "Completed",
        payloadHash,
        response: responseRecord(response),
        expiresAt: Math.floor(now / 1000) + idempotencyTtlSeconds,
      },
      { condition: takeable(now) },
    ),
  };
}

/**
 * The answer stored for the key of a request that writes its answer with its resource (`answerWrite`): the stored
 * response for the same payload; a 422 for another payload, a 409 while an older claim of it may still run;
 * undefined when the key is free (never used, expired or abandoned): the request's own answer stands.
 */
export async function storedAnswer(request: KeyedRequest, now = Date.now()): Promise<StoredResponse | undefined> {
  assertValidKey(request.idempotencyKey);
  const { organizationId, scope, idempotencyKey } = request;
  return answerOf(
    request,
    await IdempotencyEntity.get({ organizationId, scope, idempotencyKey }, { consistent: true }),
    now,
  );
}

/**
 * `storedAnswer` as a read for the request's own first batch (`readTogether`), so a key used before refuses the
 * request before it writes anything (a conversation created or linked, the rate limit spent): `AnsweredBefore`
 * carries the stored response, another payload is a 422. The transaction's `answerWrite` still settles a race.
 */
export function answeredRead(request: KeyedRequest, now = Date.now()): PlannedRead<void> {
  assertValidKey(request.idempotencyKey);
  const { organizationId, scope, idempotencyKey } = request;
  return oneItem(IdempotencyEntity.key({ organizationId, scope, idempotencyKey }), (item) => {
    const response = answerOf(request, item, now);
    if (response) throw new AnsweredBefore(response);
  });
}

export async function complete(
  organizationId: string,
  scope: string,
  idempotencyKey: string,
  response: StoredResponse,
): Promise<void> {
  await table.update(
    IdempotencyEntity.update(
      { organizationId, scope, idempotencyKey },
      { state: "Completed", response: responseRecord(response) },
      { remove: ["inFlightUntil"] },
    ),
  );
}

/**
 * Frees the key after a failed request, so the client can retry with it. The record stays, claimable at once: a
 * request that failed after its write (the resource stored, a later step refused) is resumed by the retry with the
 * same resource id, which finds the stored resource rather than creating another.
 */
export async function release(organizationId: string, scope: string, idempotencyKey: string): Promise<void> {
  await conditionally(
    table.update(
      IdempotencyEntity.update(
        { organizationId, scope, idempotencyKey },
        { inFlightUntil: 0 },
        { condition: where.equals("state", "InFlight") },
      ),
    ),
  );
}
