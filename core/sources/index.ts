import * as v from "valibot";
import { sourceNames } from "#core/sources/names";
import { consentPolicies } from "#core/consent/basis";
import type { Actor } from "#core/auth/actor";
import { SourceEntity } from "#core/db/entities/sources";
import { oneItem, type PlannedRead } from "#core/db/items";
import { where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { keyOrder, listPage, type ListResource, listQuerySchema, prefixQuery } from "#core/db/list";
import { ConflictError, NotFoundError, ValidationError } from "#core/errors";
import * as Audit from "#core/audit/index";
import { decimalString, normalize as normalizeDecimal } from "#core/shared/money";
import { newId, nowIso, timestamp } from "#core/shared/ids";
import { type Page, type PagingQuery } from "#core/shared/paging";
import { hashSecret, randomSecret } from "#core/shared/secrets";
import { maxChars, toFieldErrors } from "#core/shared/validation";
import {
  defaultDuplicateWindowHours,
  forgetVerifiedSource,
  parseIpRange,
  readSource,
  resolveSourceKey,
  toSource,
} from "#core/sources/key-resolution";

export {
  defaultDuplicateWindowHours,
  ipAllowed,
  parseIpRange,
  type SourceKeyRefusal,
} from "#core/sources/key-resolution";

/** Longest window a source may ask for; also how long a dedupe claim is kept. */
export const maxDuplicateWindowHours = 24 * 90;

const ipOrCidr = v.pipe(
  v.string(),
  v.trim(),
  v.check(
    (value) => parseIpRange(value) !== undefined,
    "Must be an IPv4/IPv6 address or CIDR range such as 203.0.113.0/24.",
  ),
);

const sourceFields = {
  name: v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(255)),
  enabled: v.optional(v.boolean(), true),
  defaultPrice: v.nullish(decimalString),
  vertical: v.nullish(v.pipe(v.string(), v.trim(), maxChars(100))),
  product: v.nullish(v.pipe(v.string(), v.trim(), maxChars(100))),
  allowedIps: v.nullish(
    v.pipe(
      v.array(ipOrCidr),
      v.maxLength(50),
      v.description(
        "IPv4/IPv6 addresses or CIDR ranges (203.0.113.0/24) allowed to post leads; null or empty allows any.",
      ),
    ),
  ),
  duplicateWindowHours: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(maxDuplicateWindowHours)),
    defaultDuplicateWindowHours,
  ),
  consentPolicy: v.optional(
    v.pipe(
      v.picklist(consentPolicies),
      v.description(
        "`require`: leads need a verified consent (certificate, consent record, opt-in) before any automated text or call; `allow` (default): they do not.",
      ),
    ),
    "allow",
  ),
};

/** Body of `POST /sources` and `PUT /sources/{id}` (PUT replaces every writable field). */
export const SourceRequestSchema = v.strictObject(sourceFields);
export type SourceRequest = v.InferInput<typeof SourceRequestSchema>;

/** A lead source as every read answers it; the key itself is never stored, only its hash. */
export const SourceSchema = v.object({
  id: v.string(),
  name: v.string(),
  enabled: v.boolean(),
  defaultPrice: v.nullable(v.string()),
  vertical: v.nullable(v.string()),
  product: v.nullable(v.string()),
  allowedIps: v.nullable(v.array(v.string())),
  duplicateWindowHours: v.number(),
  consentPolicy: v.picklist(consentPolicies),
  /** The key's first characters, to tell keys apart ("lk_01J…_Ab3d…"). */
  keyPreview: v.string(),
  keyRotatedAt: v.nullable(timestamp),
  /** Set while the source's keys are revoked (until the next rotation). */
  keyRevokedAt: v.nullable(timestamp),
  /** Until when the key before the last rotation still works (the rotation's overlap). */
  previousKeyExpiresAt: v.nullable(timestamp),
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
});
export type Source = v.InferOutput<typeof SourceSchema>;

/** Answer of create and rotate: the plain key, shown only this once. */
export const SourceWithKeySchema = v.object({ source: SourceSchema, sourceId: v.string(), apiKey: v.string() });
export type SourceWithKey = v.InferOutput<typeof SourceWithKeySchema>;

const listResource: ListResource<Source> = {
  name: "sources",
  fields: {
    name: { get: (s) => s.name, kind: "string", filter: true, sort: true, search: true },
    enabled: { get: (s) => s.enabled, kind: "boolean", filter: true },
    vertical: { get: (s) => s.vertical, kind: "string", filter: true, search: true },
    product: { get: (s) => s.product, kind: "string", filter: true, search: true },
    createdAt: { get: (s) => s.createdAt, kind: "date", sort: true, range: true },
    modifiedAt: { get: (s) => s.modifiedAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (s) => s.id,
  fromItem: toSource,
  candidates: (organizationId) => prefixQuery(keys.sourcePrefix(organizationId)),
  orders: { createdAt: keyOrder(keys.sourcePrefix) },
};

export const ListSourcesSchema = listQuerySchema(listResource);

/** Why a source credential was refused (all answered 401 on the IP partition). */

/** Lead sources of an organization and their intake keys. */

export { sourceNames as names };

/** Creates a source with a fresh key; the plain key is returned once. */
export async function create(actor: Actor, input: SourceRequest): Promise<SourceWithKey> {
  const request = parseRequest(input);
  return Audit.commit(actor, async (tx) => {
    const now = nowIso();
    const apiKey = newSourceKey(actor.organizationId);
    const source: Source = {
      id: newId(),
      ...writable(request),
      keyPreview: preview(apiKey),
      keyRotatedAt: null,
      keyRevokedAt: null,
      previousKeyExpiresAt: null,
      createdAt: now,
      modifiedAt: null,
    };
    tx.put(
      "change",
      SourceEntity.create({ organizationId: actor.organizationId, ...source, keyHash: hashSecret(apiKey) }),
    );
    // The entry shows the source and that a key was issued (recorded as changed, never its value).
    return {
      change: { ...audit("created", source.id), after: { ...source, apiKey } },
      result: { source, sourceId: source.id, apiKey },
    };
  });
}

export async function fromId(actor: Actor, sourceId: string): Promise<Source> {
  const item = await readSource(actor.organizationId, sourceId);
  if (!item) throw new NotFoundError("Source", sourceId);
  return toSource(item);
}

export async function list(actor: Actor, query: PagingQuery): Promise<Page<Source>> {
  return listPage(listResource, actor.organizationId, query);
}

/** Replaces the writable fields; the key is unchanged. */
export async function update(actor: Actor, sourceId: string, input: SourceRequest): Promise<Source> {
  const fields = writable(parseRequest(input));
  return Audit.commit(actor, async (tx) => {
    const stored = await existingSource(actor.organizationId, sourceId);
    const changes = { ...fields, modifiedAt: nowIso() };
    tx.update(
      "change",
      SourceEntity.update({ organizationId: actor.organizationId, id: sourceId }, changes, {
        condition: Audit.unchangedSince(stored),
      }),
    );
    tx.afterCommit(() => forgetVerifiedSource(actor.organizationId, sourceId));
    const [before, after] = [toSource(stored), toSource({ ...stored, ...changes })];
    return { change: { ...audit("updated", sourceId), before, after }, result: after };
  });
}

/**
 * Issues a new key that works at once; the previous one keeps working for `overlapHours` (default 24, 0 stops it
 * at once) so the seller can switch without losing leads. Intake instances notice within `verifiedSourceMs`.
 */
export async function rotateKey(actor: Actor, sourceId: string, overlapHours = 24): Promise<SourceWithKey> {
  const apiKey = newSourceKey(actor.organizationId);
  const after = await updateKey(actor, sourceId, "source.keyRotated", (before) => {
    const now = nowIso();
    const overlap = typeof before.keyHash === "string" && overlapHours > 0;
    return {
      changes: {
        keyHash: hashSecret(apiKey),
        keyPreview: preview(apiKey),
        keyRotatedAt: now,
        modifiedAt: now,
        ...(overlap
          ? {
              previousKeyHash: before.keyHash,
              previousKeyExpiresAt: new Date(Date.now() + overlapHours * 3_600_000).toISOString(),
            }
          : {}),
      },
      remove: overlap ? ["keyRevokedAt"] : ["keyRevokedAt", "previousKeyHash", "previousKeyExpiresAt"],
    };
  });
  return { source: after, sourceId, apiKey };
}

/** Stops the source's keys (the current one and any still overlapping): intake refuses them within seconds until a rotation issues a new one. */
export async function revokeKey(actor: Actor, sourceId: string): Promise<Source> {
  return updateKey(actor, sourceId, "source.keyRevoked", (before) => {
    if (typeof before.keyHash !== "string") throw new ConflictError(`Source ${sourceId} has no key to revoke.`);
    const now = nowIso();
    return {
      changes: { keyRevokedAt: now, modifiedAt: now },
      remove: ["keyHash", "previousKeyHash", "previousKeyExpiresAt"],
    };
  });
}

export { resolveSourceKey as resolveKey };

/** The source as stored, for lead processing (no actor: the organization comes from the lead). */
export async function settings(organizationId: string, sourceId: string): Promise<Source | undefined> {
  const item = await readSource(organizationId, sourceId);
  return item ? toSource(item) : undefined;
}

/** The read of `settings`, for a batch with other reads (`readTogether`). */
export const settingsRead = (organizationId: string, sourceId: string): PlannedRead<Source | undefined> =>
  oneItem(SourceEntity.key({ organizationId, id: sourceId }), (item) => (item ? toSource(item) : undefined));

function parseRequest(input: SourceRequest) {
  const result = v.safeParse(SourceRequestSchema, input);
  if (!result.success)
    throw new ValidationError("The source is not valid; see errors for each field.", toFieldErrors(result.issues));
  return result.output;
}

/**
 * One key change, written over the key just read (a concurrent key change is a 409) with its audit entry in the
 * same transaction; the entry shows the key's public fields only.
 */
async function updateKey(
  actor: Actor,
  sourceId: string,
  action: string,
  change: (before: Record<string, unknown>) => { changes: Record<string, unknown>; remove: string[] },
): Promise<Source> {
  return Audit.commit(
    actor,
    async (tx) => {
      const before = await existingSource(actor.organizationId, sourceId);
      const { changes, remove } = change(before);
      const sameKey =
        typeof before.keyHash === "string" ? where.equals("keyHash", before.keyHash) : where.absent("keyHash");
      tx.update(
        "change",
        SourceEntity.update({ organizationId: actor.organizationId, id: sourceId }, changes, {
          condition: where.all(where.stored(), sameKey),
          remove,
        }),
      );
      tx.afterCommit(() => forgetVerifiedSource(actor.organizationId, sourceId));
      const after = Object.fromEntries(
        Object.entries({ ...before, ...changes }).filter(([name]) => !remove.includes(name)),
      );
      return {
        change: {
          action,
          resourceType: "Source",
          resourceId: sourceId,
          before: keyView(before),
          after: keyView(after),
        },
        result: toSource(after),
      };
    },
    { conflict: () => new ConflictError(`The key of source ${sourceId} changed meanwhile; try again.`) },
  );
}

/** The key's public fields, as an audit entry shows them. */
function keyView(item: Record<string, unknown>) {
  return {
    keyPreview: item.keyPreview,
    keyRotatedAt: item.keyRotatedAt ?? null,
    keyRevokedAt: item.keyRevokedAt ?? null,
    previousKeyExpiresAt: item.previousKeyExpiresAt ?? null,
  };
}

/** An audit entry's action and resource for the source. */
function audit(verb: string, sourceId: string) {
  return { action: `source.${verb}`, resourceType: "Source", resourceId: sourceId };
}

/** The stored source, read consistently: what an audited change starts from. */
async function existingSource(organizationId: string, sourceId: string): Promise<Record<string, unknown>> {
  const stored = await SourceEntity.get({ organizationId, id: sourceId }, { consistent: true });
  if (!stored) throw new NotFoundError("Source", sourceId);
  return stored;
}

function writable(request: v.InferOutput<typeof SourceRequestSchema>) {
  return {
    name: request.name,
    enabled: request.enabled,
    defaultPrice: request.defaultPrice ? normalizeDecimal(request.defaultPrice) : null,
    vertical: request.vertical || null,
    product: request.product || null,
    allowedIps: request.allowedIps?.length ? request.allowedIps : null,
    duplicateWindowHours: request.duplicateWindowHours,
    consentPolicy: request.consentPolicy,
  };
}

function newSourceKey(organizationId: string): string {
  return `lk_${organizationId}_${randomSecret()}`;
}

function preview(apiKey: string): string {
  return `${apiKey.slice(0, 33)}${apiKey.slice(33, 37)}…`;
}
