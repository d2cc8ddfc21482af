import * as v from "valibot";
import { actorId, permissions, type Actor, type Permission } from "#core/auth/actor";
import * as Audit from "#core/audit/index";
import { ApiKeyEntity } from "#core/db/entities/organizations";
import { where } from "#core/db/expression";
import { keys } from "#core/db/keys";

import { queryAll } from "#core/db/query";
import { listPage, listQuerySchema, prefixQuery, type ListResource } from "#core/db/list";
import { transact } from "#core/db/transact";
import { ForbiddenError, NotFoundError, ConflictError } from "#core/errors";
import { newId, nowIso, timestamp } from "#core/shared/ids";
import { isPast, resolveApiKey, type ApiKeyRecord } from "#core/organizations/key-resolution";
import { hashSecret, randomSecret } from "#core/shared/secrets";
import type { Page, PagingQuery } from "#core/shared/paging";

export type { ApiKeyRecord } from "#core/organizations/key-resolution";

/** Characters of the secret kept in `prefix`, enough to tell keys apart, far too few to guess the rest (256 bits). */
const prefixSecretChars = 6;

const ScopesSchema = v.pipe(v.array(v.picklist(permissions)), v.minLength(1), v.maxLength(permissions.length));

/** Body of `POST /api-keys`. */
export const CreateApiKeySchema = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  scopes: v.pipe(
    ScopesSchema,
    v.description("Permissions the key carries; at most the creator's own (docs/permissions.md)."),
  ),
  expiresInDays: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(3650))),
});

/** Body of `POST /api-keys/{id}/rotate` and `POST /sources/{id}/keys` (optional: no body means the default overlap). */
export const RotateApiKeySchema = v.optional(
  v.strictObject({
    overlapHours: v.pipe(
      v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(168)), 24),
      v.description(
        "How long the old key keeps working beside the new one (default 24 h, 0 ends it at once, at most 7 days).",
      ),
    ),
  }),
  {},
);

export const apiKeyStatuses = ["Active", "Expiring", "Expired", "Revoked"] as const;

export const ApiKeySchema = v.object({
  id: v.string(),
  name: v.string(),
  prefix: v.pipe(
    v.string(),
    v.description("The key's first characters (`sk_<organization>_` and six of the secret), to recognise it."),
  ),
  scopes: v.array(v.string()),
  createdBy: v.string(),
  createdByName: v.string(),
  createdAt: timestamp,
  lastUsedAt: v.pipe(v.nullable(timestamp), v.description("To the hour.")),
  expiresAt: v.nullable(timestamp),
  revokedAt: v.nullable(timestamp),
  rotatedFromKeyId: v.nullable(v.string()),
  status: v.picklist(apiKeyStatuses),
});
export type ApiKey = v.InferOutput<typeof ApiKeySchema>;

export const CreatedApiKeySchema = v.object({
  ...ApiKeySchema.entries,
  key: v.pipe(v.string(), v.description("The secret, shown this once: only its hash is stored.")),
});

const listResource: ListResource<ApiKey> = {
  name: "API keys",
  fields: {
    name: { get: (k) => k.name, kind: "string", sort: true, search: true },
    status: { get: (k) => k.status, kind: "string", filter: true },
    createdBy: { get: (k) => k.createdBy, kind: "string", filter: true },
    createdAt: { get: (k) => k.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (k) => k.id,
  fromItem: toApiKey,
  candidates: (organizationId) => prefixQuery(keys.apiKeyPrefix(organizationId)),
};

export const ListApiKeysSchema = listQuerySchema(listResource);

/** An organization's `sk_` keys: issued, listed, rotated with an overlap and revoked; stored only as hashes. */

/** Issues a key; the plain key is returned once. Without an actor (operator CLI, a new organization) it is the system's. */
export async function issue(
  organizationId: string,
  input: { name: string; scopes: Permission[]; expiresInDays?: number; rotatedFromKeyId?: string },
  actor?: Actor,
): Promise<{ apiKey: string; record: ApiKeyRecord; item: Record<string, unknown> }> {
  const apiKey = `sk_${organizationId}_${randomSecret()}`;
  const record: ApiKeyRecord = {
    keyId: newId(),
    organizationId,
    name: input.name,
    scopes: input.scopes,
    createdAt: nowIso(),
  };
  const item = {
    ...ApiKeyEntity.key({ organizationId, keyHash: hashSecret(apiKey) }),
    entity: ApiKeyEntity.name,
    ...record,
    prefix: apiKey.slice(0, `sk_${organizationId}_`.length + prefixSecretChars),
    createdBy: actor ? actorId(actor) : "system",
    createdByName: actor?.displayName ?? "System",
    ...(input.rotatedFromKeyId ? { rotatedFromKeyId: input.rotatedFromKeyId } : {}),
    ...(input.expiresInDays ? { expiresAt: epochSeconds(Date.now() + input.expiresInDays * 86_400_000) } : {}),
  };
  return { apiKey, record, item };
}

/** `POST /api-keys`: a key with at most the creator's own permissions. */
export async function create(actor: Actor, input: v.InferOutput<typeof CreateApiKeySchema>) {
  const beyond = input.scopes.filter((scope) => !actor.permissions.has(scope));
  if (beyond.length)
    throw new ForbiddenError(`A key cannot carry permissions its creator lacks: ${beyond.join(", ")}.`);
  const { apiKey, item } = await issue(actor.organizationId, { ...input, scopes: [...new Set(input.scopes)] }, actor);
  const view = toApiKey(item);
  await transact([
    { Put: { Item: item } },
    Audit.entry(actor, {
      action: "apiKey.created",
      resourceType: "ApiKey",
      resourceId: view.id,
      after: auditView(view),
    }),
  ]);
  return { ...view, key: apiKey };
}

export function list(actor: Actor, query: PagingQuery): Promise<Page<ApiKey>> {
  return listPage(listResource, actor.organizationId, query);
}

/** A new key with the same name and scopes; the old one keeps working for `overlapHours`, then stops. */
export async function rotate(actor: Actor, keyId: string, input: v.InferOutput<typeof RotateApiKeySchema>) {
  const old = await usableKey(actor.organizationId, keyId);
  const { apiKey, item } = await issue(
    actor.organizationId,
    { name: old.name as string, scopes: old.scopes as Permission[], rotatedFromKeyId: keyId },
    actor,
  );
  const endsAt = epochSeconds(Date.now() + input.overlapHours * 3_600_000);
  const before = toApiKey(old);
  await transact([
    { Put: { Item: item } },
    {
      // Only shortens a live key's life: a key revoked, or already ending sooner, meanwhile is left as it is.
      Update: ApiKeyEntity.update(
        old,
        { expiresAt: endsAt },
        {
          condition: where.all(
            where.stored(),
            where.absent("revokedAt"),
            where.any(where.absent("expiresAt"), where.after("expiresAt", endsAt)),
          ),
        },
      ),
    },
    Audit.entry(actor, {
      action: "apiKey.rotated",
      resourceType: "ApiKey",
      resourceId: keyId,
      before: auditView(before),
      after: auditView(toApiKey({ ...old, expiresAt: endsAt })),
    }),
  ]);
  return { ...toApiKey(item), key: apiKey };
}

/** Stops a key: refused on every instance once its warm cache entry (seconds) is gone. */
export async function revoke(actor: Actor, keyId: string): Promise<void> {
  const old = await usableKey(actor.organizationId, keyId);
  await revokeItem(actor, old);
}

/** Revokes every key a user created (the user was deactivated). */
export async function revokeCreatedBy(actor: Actor, userId: string): Promise<number> {
  const mine = (await keyItems(actor.organizationId)).filter((item) => item.createdBy === userId && !item.revokedAt);
  for (const item of mine) await revokeItem(actor, item);
  return mine.length;
}

export { resolveApiKey as resolve };

async function revokeItem(actor: Actor, item: Record<string, unknown>): Promise<void> {
  const before = toApiKey(item);
  const revokedAt = nowIso();
  await transact([
    {
      Update: ApiKeyEntity.update(
        item,
        { revokedAt },
        { condition: where.all(where.stored(), where.absent("revokedAt")) },
      ),
    },
    Audit.entry(actor, {
      action: "apiKey.revoked",
      resourceType: "ApiKey",
      resourceId: before.id,
      before: auditView(before),
      after: auditView(toApiKey({ ...item, revokedAt })),
    }),
  ]);
}

/** The organization's key items (an organization holds tens of keys: read whole). */
function keyItems(organizationId: string) {
  return queryAll(prefixQuery(keys.apiKeyPrefix(organizationId)));
}

async function usableKey(organizationId: string, keyId: string): Promise<Record<string, unknown>> {
  const item = (await keyItems(organizationId)).find((candidate) => candidate.keyId === keyId);
  if (!item) throw new NotFoundError("API key", keyId);
  const status = toApiKey(item).status;
  if (status === "Revoked" || status === "Expired")
    throw new ConflictError(`API key ${keyId} is ${status.toLowerCase()}.`);
  return item;
}

/** What the audit log keeps of a key: never its hash. */
function auditView(key: ApiKey) {
  return { name: key.name, scopes: key.scopes, expiresAt: key.expiresAt, revokedAt: key.revokedAt, status: key.status };
}

const epochSeconds = (ms: number) => Math.floor(ms / 1000);

function toApiKey(item: Record<string, unknown>): ApiKey {
  const expiresAt = typeof item.expiresAt === "number" ? new Date(item.expiresAt * 1000).toISOString() : null;
  const status = item.revokedAt ? "Revoked" : isPast(item.expiresAt) ? "Expired" : expiresAt ? "Expiring" : "Active";
  return {
    id: item.keyId as string,
    name: item.name as string,
    prefix: (item.prefix as string | undefined) ?? `sk_${item.organizationId as string}_`,
    scopes: (item.scopes as string[]) ?? [],
    createdBy: (item.createdBy as string | undefined) ?? "system",
    createdByName: (item.createdByName as string | undefined) ?? "System",
    createdAt: item.createdAt as string,
    lastUsedAt: (item.lastUsedAt as string | undefined) ?? null,
    expiresAt,
    revokedAt: (item.revokedAt as string | undefined) ?? null,
    rotatedFromKeyId: (item.rotatedFromKeyId as string | undefined) ?? null,
    status,
  };
}
