import * as v from "valibot";
import { actorId, type Actor } from "#core/auth/actor";
import { entities, keys } from "#core/db/keys";
import { putIfNew, table } from "#core/db/items";
import { where, type Condition } from "#core/db/expression";
import { transact, Transaction, TransactionConditionFailed, type TransactItem } from "#core/db/transact";
import { ConflictError } from "#core/errors";
import { keyOrder, listPage, listQuerySchema, prefixQuery, type ListResource } from "#core/db/list";
import { newId, nowIso, timestamp } from "#core/shared/ids";
import type { Page, PagingQuery } from "#core/shared/paging";

/** How long an entry is kept: DynamoDB's TTL removes it after this (docs/decisions.md "Audit log"). */
export const auditRetentionDays = 400;

/** Field names whose values are credentials: recorded as changed, never with their value. */
const secretField = /secret|password|token|authorization|api[-_]?key|keyhash|credential|signature|cookie/i;
export const redacted = "[redacted]";

const changeValue = v.pipe(v.unknown(), v.description("The field's value (any JSON); `[redacted]` for a credential."));

export const AuditEntrySchema = v.object({
  id: v.string(),
  occurredAt: timestamp,
  action: v.pipe(
    v.string(),
    v.description("What happened, `<resource>.<verb>` (e.g. `user.roleChanged`, `apiKey.revoked`)."),
  ),
  resourceType: v.string(),
  resourceId: v.nullable(v.string()),
  actor: v.object({
    kind: v.picklist(["user", "apiKey", "source", "system"]),
    id: v.string(),
    displayName: v.string(),
    email: v.nullable(v.string()),
  }),
  changes: v.pipe(
    v.record(v.string(), v.object({ before: changeValue, after: changeValue })),
    v.description("The changed fields only, each with its value before and after (null when absent)."),
  ),
  ip: v.nullable(v.string()),
  userAgent: v.nullable(v.string()),
});
export type AuditEntry = v.InferOutput<typeof AuditEntrySchema>;

/** One change to record: before and after of the resource (only the differing fields are kept). */
export interface AuditChange {
  action: string;
  resourceType: string;
  resourceId?: string;
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

const listResource: ListResource<AuditEntry> = {
  name: "audit log entries",
  fields: {
    occurredAt: { get: (e) => e.occurredAt, kind: "date", sort: true, range: true },
    action: { get: (e) => e.action, kind: "string", filter: true, search: true },
    resourceType: { get: (e) => e.resourceType, kind: "string", filter: true },
    resourceId: { get: (e) => e.resourceId, kind: "string", filter: true },
    actorId: { get: (e) => e.actor.id, kind: "string", filter: true },
  },
  defaultOrder: [{ field: "occurredAt", direction: "desc" }],
  idOf: (e) => e.id,
  fromItem: toEntry,
  candidates: (organizationId) => prefixQuery(keys.auditPrefix(organizationId)),
  // Entries are keyed by a ULID taken when they occur: the key order is the time order.
  orders: { occurredAt: keyOrder(keys.auditPrefix) },
};

export const ListAuditLogSchema = listQuerySchema(listResource);

/** How often an audited change is made again on a resource others keep changing before it gives up (409). */
const maxCommitRounds = 5;

/** The organization's audit log: who changed what, when and from where. */

/** The put of an entry, to commit inside the transaction of the change it records. */
export function entry(actor: Actor, change: AuditChange): TransactItem {
  return { Put: { Item: auditItem(actor, change) } };
}

/**
 * Commits a change and its entry in one transaction, so neither is ever stored without the other (issue 25).
 * `attempt` reads the resource (the entry's "before"), adds the change's writes to `tx` as the part `change`,
 * conditioned on the resource being as read (`unchangedSince`), and answers the entry and the result; with no
 * write or no change (a retried create finding what it stored) the result is answered as is, with no entry. When another change
 * got in between, the part's condition fails and the attempt runs again on what is stored now: concurrent
 * changes all land, as before, each with an entry that tells the truth. `conflict`: the error to answer instead
 * (a change that must not be made over another one, such as a key rotation).
 */
export async function commit<T>(
  actor: Actor,
  attempt: (tx: Transaction) => Promise<{ change?: AuditChange; result: T }>,
  options: { conflict?: () => Error } = {},
): Promise<T> {
  for (let round = 1; ; round++) {
    const tx = new Transaction();
    const { change, result } = await attempt(tx);
    if (!change || tx.items.length === 0) return result;
    tx.include("audit", entry(actor, change));
    try {
      await transact(tx);
      return result;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failed("change")) throw error;
      if (options.conflict) throw options.conflict();
      if (round >= maxCommitRounds)
        throw new ConflictError(`The ${change.resourceType} kept changing while this change was made; retry.`);
    }
  }
}

/**
 * The condition that a resource read for an audited change is still as read: every audited change sets its
 * `modifiedAt`, so an item whose `modifiedAt` is the one read has not changed since (none read: still absent).
 */
export function unchangedSince(read: Record<string, unknown> | undefined): Condition {
  if (!read) return where.new();
  return read.modifiedAt == null
    ? where.all(where.stored(), where.absentOrNull("modifiedAt"))
    : where.equals("modifiedAt", read.modifiedAt);
}

/**
 * Records a change written on its own (after a single conditional write). `entryId`: the entry's fixed id (a ULID:
 * the key order stays the time order), written once whoever records it again.
 */
export async function record(actor: Actor, change: AuditChange, options: { entryId?: string } = {}): Promise<void> {
  const Item = auditItem(actor, change, options.entryId);
  if (!options.entryId) await table.put({ Item });
  else await putIfNew(Item);
}

/** `POST /audit-log/all/my`: newest first by default. */
export function list(actor: Actor, query: PagingQuery): Promise<Page<AuditEntry>> {
  return listPage(listResource, actor.organizationId, query);
}

/** The fields that differ between before and after, credentials redacted. */
export function changedFields(before: Record<string, unknown> = {}, after: Record<string, unknown> = {}) {
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[field] ?? null;
    const is = after[field] ?? null;
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    changes[field] = { before: redact(field, was), after: redact(field, is) };
  }
  return changes;
}

/** A value with every credential inside it replaced by `[redacted]` (nested objects such as an action's headers too). */
export function redact(field: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (secretField.test(field)) return redacted;
  if (Array.isArray(value)) return value.map((entry) => redact("", entry));
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([name, inner]) => [name, redact(name, inner)]),
    );
  }
  return value;
}

function auditItem(actor: Actor, change: AuditChange, id = newId()) {
  const occurredAt = nowIso();
  const entry: AuditEntry = {
    id,
    occurredAt,
    action: change.action,
    resourceType: change.resourceType,
    resourceId: change.resourceId ?? null,
    actor: {
      kind: actor.apiKeyId === "system" ? "system" : actor.kind,
      id: actorId(actor),
      displayName: actor.displayName,
      email: actor.email ?? null,
    },
    changes: changedFields(change.before, change.after),
    ip: actor.origin?.ip ?? null,
    userAgent: actor.origin?.userAgent ?? null,
  };
  return {
    ...keys.auditEntry(actor.organizationId, id),
    entity: entities.auditEntry,
    ...entry,
    expiresAt: Math.floor(Date.now() / 1000) + auditRetentionDays * 86_400,
  };
}

function toEntry(item: Record<string, unknown>): AuditEntry {
  return {
    id: item.id as string,
    occurredAt: item.occurredAt as string,
    action: item.action as string,
    resourceType: item.resourceType as string,
    resourceId: (item.resourceId as string | null) ?? null,
    actor: item.actor as AuditEntry["actor"],
    changes: (item.changes as AuditEntry["changes"]) ?? {},
    ip: (item.ip as string | null) ?? null,
    userAgent: (item.userAgent as string | null) ?? null,
  };
}
