/** The ledger: one entry per movement of money, written in the same transaction as the wallet change it explains, and its list. */
import { type LedgerEntry } from "#core/billing/schemas";
import { toUnits } from "#core/billing/prices";
import { part, type TransactItem } from "#core/db/transact";
import { LedgerEntryEntity } from "#core/db/entities/billing";
import { where } from "#core/db/expression";
import { type ListResource, listQuerySchema } from "#core/db/list";
import { newId } from "#core/shared/ids";

export const ledgerResource: ListResource<LedgerEntry> = {
  name: "ledger",
  fields: {
    entryType: { get: (e) => e.entryType, kind: "string", filter: true },
    reason: { get: (e) => e.reason, kind: "string", filter: true },
    relatedEntityType: { get: (e) => e.relatedEntityType, kind: "string", filter: true },
    relatedEntityId: { get: (e) => e.relatedEntityId, kind: "string", filter: true },
    messageId: { get: (e) => e.messageId, kind: "string", filter: true },
    callId: { get: (e) => e.callId, kind: "string", filter: true },
    phoneNumberId: { get: (e) => e.phoneNumberId, kind: "string", filter: true },
    amount: { get: (e) => e.amount, kind: "decimal", sort: true, range: true },
    description: { get: (e) => e.description, kind: "string", search: true },
    reference: { get: (e) => e.reference, kind: "string", filter: true, search: true },
    createdAt: { get: (e) => e.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (e) => e.id,
  fromItem: toLedgerEntry,
  // Each entry is in a partition of its own (issue 27): the ledger is its write-sharded creation index, merged.
  candidates: (organizationId) => LedgerEntryEntity.query("byCreation", { organizationId }),
  orders: {
    createdAt: (organizationId, _context, forward) =>
      LedgerEntryEntity.plan("byCreation", { organizationId }, { forward }),
    amount: (organizationId, _context, forward) => LedgerEntryEntity.plan("byAmount", { organizationId }, { forward }),
  },
};

export const ListLedgerSchema = /* @__PURE__ */ listQuerySchema(ledgerResource);

/** The put of a new ledger entry; `stored` adds attributes kept beside the entry, never answered (`usageCounted`). */
export function ledgerPut(
  organizationId: string,
  entry: LedgerEntry,
  stored: Record<string, unknown> = {},
): TransactItem {
  return part("ledger", {
    Put: LedgerEntryEntity.putAt(
      { organizationId, id: entry.id },
      { amountUnits: toUnits(entry.amount), ...stored, ...entry },
      { condition: where.new() },
    ),
  });
}

/** A ledger entry with every reference it does not name empty. */
export function ledgerEntry(
  fields: Pick<LedgerEntry, "entryType" | "amount" | "currency" | "reason" | "createdBy" | "createdAt"> &
    Partial<LedgerEntry>,
): LedgerEntry {
  return {
    id: newId(),
    description: null,
    relatedEntityType: null,
    relatedEntityId: null,
    messageId: null,
    callId: null,
    phoneNumberId: null,
    quantity: null,
    reference: null,
    ...fields,
  };
}

export function toLedgerEntry(item: Record<string, unknown>): LedgerEntry {
  const field = <T>(name: string) => (item[name] ?? null) as T;
  return {
    id: field("id"),
    entryType: field("entryType"),
    amount: field("amount"),
    currency: field("currency"),
    reason: field("reason"),
    description: field("description"),
    relatedEntityType: field("relatedEntityType"),
    relatedEntityId: field("relatedEntityId"),
    messageId: field("messageId"),
    callId: field("callId"),
    phoneNumberId: field("phoneNumberId"),
    quantity: field("quantity"),
    reference: field("reference"),
    createdBy: field("createdBy"),
    createdAt: field("createdAt"),
  };
}
