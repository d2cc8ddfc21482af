import { SuppressionEntity } from "#core/db/entities/suppressions";
import { table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { EventEntity, type StoredEvent } from "#core/db/entities/events";
import { LeadEntity } from "#core/db/entities/leads";
import { ConversationEntity } from "#core/db/entities/messaging";
import { LedgerEntryEntity } from "#core/db/entities/billing";
import { withoutKeys } from "#core/db/indexes";

/** The entities whose lists or filters read gsi4-gsi7. */
const indexed: string[] = [
  entities.lead,
  entities.event,
  entities.conversation,
  entities.suppression,
  entities.ledgerEntry,
];

/**
 * The ordered-list and filter index attributes (gsi4-gsi7, docs/data-model.md)
 * an item of each listed entity carries, computed from its stored fields the
 * way the live writes compute them.
 */
function listIndexAttributes(item: Record<string, unknown>): Record<string, unknown> | undefined {
  // The organization is the partition key's second part: an item in a partition of its own (`ORG#<org>#CONVERSATION#…`)
  // stores no organizationId of its own.
  const organizationId = String(item.organizationId ?? String(item.pk).split("#")[1]);
  switch (item.entity) {
    case entities.lead: {
      const stored = LeadEntity.item({ ...LeadEntity.fromItem(item), organizationId });
      return Object.fromEntries(Object.entries(stored).filter(([name]) => /^gsi[4-8](pk|sk)$/.test(name)));
    }
    case entities.event: {
      const stored = EventEntity.item({ ...withoutKeys(item), organizationId } as StoredEvent);
      return Object.fromEntries(Object.entries(stored).filter(([name]) => /^gsi[78](pk|sk)$/.test(name)));
    }
    case entities.conversation: {
      const conversation = { organizationId, id: String(item.id), lastMessageAt: item.lastMessageAt as string | null };
      return {
        ...ConversationEntity.entryIn("byLastMessage", conversation),
        ...(item.unread === true ? ConversationEntity.entryIn("unread", conversation) : {}),
      };
    }
    case entities.suppression: {
      const stored = SuppressionEntity.item({
        organizationId,
        phoneNumber: String(item.phoneNumber),
        createdAt: String(item.createdAt),
      });
      return Object.fromEntries(Object.entries(stored).filter(([name]) => /^gsi[4-7](pk|sk)$/.test(name)));
    }
    case entities.ledgerEntry:
      return LedgerEntryEntity.entryIn("byAmount", {
        organizationId,
        id: String(item.id),
        amount: String(item.amount),
      });
    default:
      return undefined;
  }
}

/**
 * Operator migration (`npm run admin -- backfill-list-indexes`; in core/db beside migrate-keys.ts, as it writes index
 * attributes by their physical names): writes the list
 * index attributes onto leads, events, conversations, suppressions and ledger
 * entries stored
 * before those indexes existed, so index-backed lists include them. It scans
 * the whole table once, or, for one organization, every partition of it (its
 * own and its leads' and events', `ORG#<id>#…`: a filtered scan, an operator
 * job, never a request path), and rewrites each item's attributes from its
 * current fields; running it again is safe.
 */
export async function backfillListIndexes(organizationId?: string): Promise<{ scanned: number; updated: number }> {
  let scanned = 0;
  let updated = 0;
  let startKey: Record<string, unknown> | undefined;
  const listed = {
    FilterExpression: `entity IN (${indexed.map((_, index) => `:e${index}`).join(", ")})`,
    ExpressionAttributeValues: Object.fromEntries(indexed.map((entity, index) => [`:e${index}`, entity])),
  };
  do {
    const page = await table.scan({
      ...listed,
      ...(organizationId
        ? {
            FilterExpression: `(${listed.FilterExpression}) AND (pk = :pk OR begins_with(pk, :partitions))`,
            ExpressionAttributeValues: {
              ...listed.ExpressionAttributeValues,
              ":pk": keys.organization(organizationId).pk,
              ":partitions": `${keys.organization(organizationId).pk}#`,
            },
          }
        : {}),
      ExclusiveStartKey: startKey,
    });
    scanned += page.ScannedCount ?? 0;
    startKey = page.LastEvaluatedKey;
    await Promise.all(
      (page.Items ?? []).map(async (item) => {
        const attributes = listIndexAttributes(item);
        if (!attributes || Object.entries(attributes).every(([name, value]) => item[name] === value)) return;
        const names = Object.keys(attributes);
        await table.update({
          Key: { pk: item.pk, sk: item.sk },
          UpdateExpression: `SET ${names.map((name, index) => `#a${index} = :v${index}`).join(", ")}`,
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#a${index}`, name])),
          ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:v${index}`, attributes[name]])),
        });
        updated++;
      }),
    );
  } while (startKey);
  return { scanned, updated };
}
