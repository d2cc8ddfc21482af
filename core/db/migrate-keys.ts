import { transact, Transaction, TransactionConditionFailed } from "#core/db/transact";
import { computed, Placeholders, where } from "#core/db/expression";
import { getItem, table, type Item } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { EventEntity, type StoredEvent } from "#core/db/entities/events";
import { LeadEntity, type StoredLead } from "#core/db/entities/leads";
import { AnalyticsLeadEntity, type StoredLeadFacts } from "#core/db/entities/analytics";
import { CallByPhoneEntity, CallEntity, type StoredCall } from "#core/db/entities/calls";
import { ConversationEntity, NumberHealthEntity, type StoredConversation } from "#core/db/entities/messaging";
import { PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { LedgerEntryEntity, UsageDayEntity } from "#core/db/entities/billing";
import { AutomationEntity, AutomationRunEntity } from "#core/db/entities/automations";
import { SuppressionEntity } from "#core/db/entities/suppressions";
import { packedRunItem, toStoredRun } from "#core/db/entities/packed-runs";
import { accessPatterns, withoutKeys } from "#core/db/indexes";
import { copyKey, ownPartition } from "#core/db/keys/shared";
import { everyCopy } from "#core/db/copies";

/**
 * An item whose index keys do not change with its move (a claim has none; a message's conversation and due entries
 * name no partition of its): its partition is its sort key's (`ownPartition`), whatever fields an old item holds.
 */
const keptIndexes = (old: Item, organizationId: string): Item => ({
  ...old,
  ...ownPartition(organizationId, String(old.sk)),
});

/** A rollup or histogram item's partition since issue 27: its level's (`ANALYTICS#<level>#<bucket>` names the level). */
function rollupLevelPartition(old: Item, organizationId: string): string {
  const level = String(old.sk).split("#")[1] as "S" | "M" | "H" | "D" | "W";
  return keys.analyticsRollup(organizationId, level, "").pk;
}

/**
 * The entities issue 27 moved out of the organization's partition, and the keys each derives from the old item
 * (with its `organizationId`): a declared entity's every index key again, the others their own.
 */
const moved: Record<string, ((old: Item, organizationId: string) => Item) | undefined> = {
  [entities.lead]: (old, organizationId) => LeadEntity.item({ ...withoutKeys(old), organizationId } as StoredLead),
  [entities.event]: (old, organizationId) => EventEntity.item({ ...withoutKeys(old), organizationId } as StoredEvent),
  [entities.leadClaim]: keptIndexes,
  [entities.message]: keptIndexes,
  [entities.providerMessage]: keptIndexes,
  // A run's list entries are derived again (an automation's runs, its active ones: sharded since); its due entry
  // follows the engine's state, which the old item's entry already says. Its fields are kept packed, or not, as read.
  [entities.automationRun]: (old, organizationId) => {
    const run = { ...toStoredRun(old), organizationId };
    const item = AutomationRunEntity.item(run);
    return { ...(old.packed ? packedRunItem(item, run) : item), gsi3pk: old.gsi3pk, gsi3sk: old.gsi3sk };
  },
  [entities.automationRunClaim]: keptIndexes,
  // Moved so that a redelivered event is still counted once, an early response still found, and an open hold still
  // settled (its due entry kept) across the deploy.
  [entities.analyticsLead]: (old, organizationId) =>
    AnalyticsLeadEntity.item({ ...withoutKeys(old), organizationId } as StoredLeadFacts),
  [entities.analyticsCounted]: keptIndexes,
  [entities.analyticsEarlyResponse]: keptIndexes,
  [entities.reservation]: keptIndexes,
  // A call's log entry is derived again (sharded since); its due entry is the sweeper's, which the old item says.
  [entities.call]: (old, organizationId) => ({
    ...CallEntity.item({ ...withoutKeys(old), organizationId } as StoredCall),
    gsi3pk: old.gsi3pk,
    gsi3sk: old.gsi3sk,
  }),
  // A number's call copies share one partition of that number's (`CALLPHONE#<e164>#<call>` names both).
  [entities.callByPhone]: (old, organizationId) => {
    const [, e164 = "", callId = ""] = String(old.sk).split("#");
    return { ...old, ...CallByPhoneEntity.key({ organizationId, e164, callId }) };
  },
  [entities.providerCall]: keptIndexes,
  // A conversation's creation entry is derived again (sharded since) and its last-message entry from its time; its
  // inbox entry says whether it is unread, which only the old item's entry knows.
  [entities.conversation]: (old, organizationId) => ({
    ...ConversationEntity.item({ ...withoutKeys(old), organizationId } as StoredConversation),
    gsi7pk: old.gsi7pk,
    gsi7sk: old.gsi7sk,
  }),
  [entities.conversationByPhone]: keptIndexes,
  // Each rollup level in a partition of its own (same sort key); counters are added and histograms summed (below).
  [entities.analyticsRollup]: (old, organizationId) => ({ ...old, pk: rollupLevelPartition(old, organizationId) }),
  [entities.analyticsHistogram]: (old, organizationId) => ({ ...old, pk: rollupLevelPartition(old, organizationId) }),
  // A number (its pacing state written on every send) and an automation (its last run noted by every run) get their
  // creation entry, the organization's listing of them since; a number's health buckets share a partition of its.
  [entities.phoneNumber]: (old, organizationId) =>
    PhoneNumberEntity.item({ ...withoutKeys(old), organizationId, id: String(old.id) }),
  [entities.automation]: (old, organizationId) =>
    AutomationEntity.item({ ...withoutKeys(old), organizationId, id: String(old.id) }),
  // A wallet's sub-balance: a hold and its settlement write one, as the lead rate does.
  [entities.walletShard]: keptIndexes,
  // A ledger entry's listings are derived again (by creation, new; by amount, sharded since); a wallet part's usage
  // days share a partition of that part's (`USAGE#<day>#<part>` names it).
  [entities.ledgerEntry]: (old, organizationId) =>
    LedgerEntryEntity.item({ ...withoutKeys(old), organizationId, id: String(old.id), amount: String(old.amount) }),
  [entities.usageDay]: (old, organizationId) => {
    const [, day = "", walletPart = ""] = String(old.sk).split("#");
    return { ...old, ...UsageDayEntity.key({ organizationId, day, walletPart }) };
  },
  [entities.numberHealth]: (old, organizationId) => {
    const [, phoneNumberId = "", bucket = ""] = String(old.sk).split("#");
    return { ...old, ...NumberHealthEntity.key({ organizationId, phoneNumberId, bucket }) };
  },
  // A suppression entry (every send attempt reads it consistently): its list entries derived again (by number, new).
  [entities.suppression]: (old, organizationId) =>
    SuppressionEntity.item({ ...withoutKeys(old), organizationId, phoneNumber: String(old.phoneNumber) }),
};

/**
 * Settings items every send reads, stored as copies since issue 27 (core/db/copies.ts): the old item becomes every
 * copy (same sort key, `ORG#<id>#<sort key>#<n>`), all written in the transaction that deletes it.
 */
const copied = new Set<string>([entities.priceList, entities.consentSettings]);

const indexKeyNames = [...new Set(Object.values(accessPatterns))].flatMap((index) => [`${index}pk`, `${index}sk`]);

/**
 * The item at its issue-27 place: the old item's attributes, with the table key and every index key derived from
 * them (sharded list keys included). An item in the old layout has the organization's partition key (`ORG#<id>`)
 * and the sort key it keeps (`LEAD#<id>`, `EVENT#<id>`, `LEADKEY#…`, `MESSAGE#<id>`, `PROVIDERMESSAGE#…`,
 * `RUN#<automation>#<id>`, `RUNKEY#…`, `ANALYTICS#LEAD#…`, `ANALYTICS#COUNTED#…`, `ANALYTICS#EARLY#…`,
 * `RESERVATION#…`, `CALL#<id>`, `CALLPHONE#<e164>#<id>`, `PROVIDERCALL#…`, `CONVERSATION#<id>`,
 * `CONVERSATIONPHONE#<e164>`, `PHONENUMBER#<id>`, `AUTOMATION#<id>`, `NUMBERHEALTH#<number>#<bucket>`,
 * `WALLET#SHARD#<n>`, `LEDGER#<id>`, `USAGE#<day>#<part>`, `SUPPRESSION#<e164>`); its new
 * partition key is `ORG#<id>#<sort key>`, but for a number's call copies, which share `ORG#<id>#CALLPHONE#<e164>`,
 * its health buckets, which share `ORG#<id>#NUMBERHEALTH#<number>`, and a wallet part's usage days, which share
 * `ORG#<id>#USAGE#<part>`.
 */
export function movedItem(item: Item): Item | undefined {
  const derive = moved[String(item.entity)];
  if (!derive || String(item.pk).split("#").length !== 2) return undefined;
  const organizationId = String(item.pk).slice("ORG#".length);
  const derived = derive(item, organizationId);
  const next: Item = { ...item, pk: derived.pk, sk: item.sk };
  for (const name of indexKeyNames) {
    if (derived[name] === undefined) delete next[name];
    else next[name] = derived[name];
  }
  // Still the organization's (its prefix), still the same sort key: a derivation that strays is a bug, not a move.
  if (!String(derived.pk).startsWith(`${String(item.pk)}#`) || derived.sk !== item.sk)
    throw new Error(
      `${String(item.entity)} ${String(item.sk)}: its derived key ${String(derived.pk)} / ${String(derived.sk)} is not under ${String(item.pk)}.`,
    );
  return next;
}

/**
 * While an item moves it is stored as this entity (its own in `movingEntity`): the table stream's consumers act on
 * inserted leads and events (the intake outbox, the analytics aggregator, the webhook fan-out; stacks/definitions.ts
 * `streamConsumers`), and a moved item is no new lead or event. The entity is set back by an update, which no
 * consumer of those entities reads.
 */
const moving = "KeyMigration";

/**
 * Operator migration (`npm run admin -- migrate-keys [--org ID]`, docs/data-model.md "Moving a stage to per-item
 * partitions"): moves every lead, event, lead claim, message, provider-message pointer, automation run, run claim,
 * analytics lead facts, count-once marker, early response, wallet hold, call, call copy, provider-call pointer,
 * conversation and conversation pointer, phone number and its health buckets, automation, wallet shard, ledger entry,
 * usage day and suppression entry stored
 * in the organization's partition to its own (and its price list and consent settings to their copies), each in one transaction (put at the new key, delete the old), so a lead is never in both places nor in neither, then
 * gives it back its entity. Where the new key holds an item already (written since the deploy), its attributes win
 * over the old copy's. Running it again moves nothing; the whole-table run also finishes a move an earlier run left
 * half done. One organization is a Query of its partition; the whole table one Scan.
 */
export async function migrateKeys(organizationId?: string): Promise<{ scanned: number; moved: number }> {
  let scanned = 0;
  let count = 0;
  for (const pass of migrationPasses) {
    const done = await migratePass(pass, organizationId);
    scanned += done.scanned;
    count += done.moved;
  }
  return { scanned, moved: count };
}

/**
 * Claims, pointers, holds and count-once markers move before the items they guard (an old partition lists `MESSAGE#`
 * before `RESERVATION#` and `RUN#` before `RUNKEY#`): once a message or run is readable at its new key, a retry of
 * it must find its hold or claim there too, or it would reserve a second hold (one the move then drops, still counted
 * on the wallet) or start a second run of one trigger.
 */
const guards: string[] = [
  entities.leadClaim,
  entities.providerMessage,
  entities.automationRunClaim,
  entities.reservation,
  entities.analyticsCounted,
  entities.analyticsEarlyResponse,
  entities.analyticsLead,
  entities.providerCall,
  entities.conversationByPhone,
];
/**
 * What every send checks (its recipient's suppression entry, the caps it reads, the prices its hold and settlement
 * read) moves in a pass of its own, before any hold or message: in one pass with them, sort-key order would move a
 * hold (`RESERVATION#…`) before the prices (`SETTINGS#PRICES`), and a receipt in between would settle it at the
 * default prices.
 */
const checked: string[] = [entities.suppression, ...copied];

/** The entities each pass moves, in order (one pass after the other, each over the whole partition or table). */
export const migrationPasses: readonly (readonly string[])[] = [
  checked,
  guards,
  Object.keys(moved).filter((name) => !checked.includes(name) && !guards.includes(name)),
];

async function migratePass(
  entityNames: readonly string[],
  organizationId: string | undefined,
): Promise<{ scanned: number; moved: number }> {
  let scanned = 0;
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  const names = [...entityNames, moving];
  const listed = {
    FilterExpression: `entity IN (${names.map((_, index) => `:e${index}`).join(", ")})`,
    ExpressionAttributeValues: Object.fromEntries(names.map((name, index) => [`:e${index}`, name])),
  };
  const prefix = organizationId ? keys.organization(organizationId).pk : undefined;
  do {
    // One organization's old items all live in its own partition: a Query of it, not a scan of the table. A move a
    // killed run left half done (its item at the new key, still under the placeholder entity) is outside that
    // partition: the whole-table run (no organization) finishes it.
    const page = prefix
      ? await table.query({
          ...listed,
          KeyConditionExpression: "pk = :prefix",
          ExpressionAttributeValues: { ...listed.ExpressionAttributeValues, ":prefix": prefix },
          ExclusiveStartKey: startKey,
        })
      : await table.scan({ ...listed, ExclusiveStartKey: startKey });
    scanned += page.ScannedCount ?? 0;
    startKey = page.LastEvaluatedKey;
    for (const item of page.Items ?? []) {
      if (item.entity === moving) await settle({ pk: String(item.pk), sk: String(item.sk) });
      else if (await moveItem(item)) count++;
    }
  } while (startKey);
  return { scanned, moved: count };
}

/**
 * Items of counters (a wallet shard's money, a usage day's charges, a number's health bucket), which writes since the
 * deploy may have begun anew at the new key (a hold taken from a shard, a charge counted, a receipt): moved by adding
 * the old item's counters onto the new key in the transaction that deletes the old one, so not a unit is lost or
 * counted twice (a put would keep only one of the two), whatever writes race the move.
 */
const counters: Record<string, ((name: string, value: unknown) => boolean) | undefined> = {
  [entities.walletShard]: (name) => ["balanceUnits", "reservedUnits", "availableUnits"].includes(name),
  [entities.usageDay]: (name) => /^(count|quantity|units)#/.test(name),
  [entities.numberHealth]: (name, value) => typeof value === "number" && name !== "expiresAt",
  [entities.analyticsRollup]: (name, value) => typeof value === "number" && name !== "expiresAt",
};

/** DynamoDB's expression limit (4 KB) takes ~100 counters an update (as the aggregator writes them); a rollup may hold more. */
const countersPerMove = 90;

/**
 * Adds the old item's counters onto the new key, a chunk at a time: each chunk is taken off the old item in the same
 * transaction (so a killed run adds nothing twice) and the last goes with the old item's delete.
 */
async function addCounters(listed: Item, isCounter: (name: string, value: unknown) => boolean) {
  // The page that listed the item is an eventually consistent read: a re-run right after a killed one could see
  // counters a committed chunk already took off. What is added is what the old item holds now, and each chunk is
  // taken off only while it still holds exactly that (a second run at the same time fails there, and stops).
  const oldKey = { pk: String(listed.pk), sk: String(listed.sk) };
  const item = await getItem(oldKey, { consistent: true });
  const next = item && movedItem(item);
  if (!item || !next) return;
  const names = Object.keys(next).filter((name) => name !== "pk" && name !== "sk");
  const counted = names.filter((name) => isCounter(name, next[name]));
  const kept = names.filter((name) => !isCounter(name, next[name]));
  for (let start = 0; ; start += countersPerMove) {
    const chunk = counted.slice(start, start + countersPerMove);
    const last = start + countersPerMove >= counted.length;
    const placeholders = new Placeholders();
    const changes = new Map<string, unknown>([
      ...(start === 0 ? kept.map((name) => [name, computed.ifAbsent(next[name])] as const) : []),
      ...chunk.map((name) => [name, computed.add(Number(next[name]))] as const),
    ]);
    const moved = new Transaction().update("moved item", {
      Key: { pk: next.pk, sk: next.sk },
      UpdateExpression: placeholders.update(changes),
      ...placeholders.attributes(),
    });
    const taken = new Placeholders();
    const unchanged = taken.condition(
      where.all(where.stored(), ...chunk.map((name) => where.equals(name, item[name]))),
    );
    await transact(
      last
        ? moved.delete("old item", { Key: oldKey, ConditionExpression: unchanged, ...taken.attributes() })
        : moved.update("old item", {
            Key: oldKey,
            UpdateExpression: taken.update(new Map(), chunk),
            ConditionExpression: unchanged,
            ...taken.attributes(),
          }),
    );
    if (last) return;
  }
}

async function moveItem(item: Item): Promise<boolean> {
  if (copied.has(String(item.entity))) return copyItem(item);
  const next = movedItem(item);
  if (!next) return false;
  const isCounter = counters[String(item.entity)];
  if (isCounter) {
    await addCounters(item, isCounter);
    return true;
  }
  if (item.entity === entities.analyticsHistogram) {
    await mergeHistogram(item, next);
    return true;
  }
  const key = { pk: String(next.pk), sk: String(next.sk) };
  const current = await getItem(key, { consistent: true });
  // A write between that read and this move fails a condition: the run stops, and running it again picks up there.
  await transact(
    new Transaction()
      .put("moved item", {
        Item: { ...next, ...current, entity: moving, movingEntity: item.entity },
        ConditionExpression: current ? "attribute_exists(pk)" : "attribute_not_exists(pk)",
      })
      .delete("old item", { Key: { pk: item.pk, sk: item.sk }, ConditionExpression: "attribute_exists(pk)" }),
  );
  await settle(key);
  return true;
}

/**
 * Replaces an old settings item in the organization's partition by its copies, in one transaction. Copies written
 * since the deploy (the settings changed: every copy at once, starting from this old item, core/db/copies.ts
 * `storedForChange`, so they hold what it held) win, and the old item is only deleted; a change between the read and
 * the move fails a condition, and the run stops (running it again picks up there). Each copy holds its identity.
 */
async function copyItem(item: Item): Promise<boolean> {
  const partition = String(item.pk);
  if (partition.split("#").length !== 2) return false;
  const organizationId = partition.slice("ORG#".length);
  const sk = String(item.sk);
  const current = await getItem(copyKey(organizationId, sk, 0), { consistent: true });
  const transaction = new Transaction().delete("old item", {
    Key: { pk: item.pk, sk: item.sk },
    ConditionExpression: "attribute_exists(pk)",
  });
  if (!current)
    for (const copy of everyCopy)
      transaction.put("copy", {
        Item: { ...item, ...copyKey(organizationId, sk, copy), organizationId, copy },
        ConditionExpression: "attribute_not_exists(pk)",
      });
  await transact(transaction);
  return true;
}

/** Gives a moved item back its entity. */
async function settle(key: { pk: string; sk: string }): Promise<void> {
  await table.update({
    Key: key,
    UpdateExpression: "SET entity = movingEntity REMOVE movingEntity",
    ConditionExpression: "entity = :moving",
    ExpressionAttributeValues: { ":moving": moving },
  });
}

/** Sums two packed histograms (nested maps of counts). */
function sumCounts(a: unknown, b: unknown): unknown {
  if (typeof a === "number" || typeof b === "number") return (Number(a) || 0) + (Number(b) || 0);
  const sum: Record<string, unknown> = { ...(a as Record<string, unknown>) };
  for (const [name, value] of Object.entries((b ?? {}) as Record<string, unknown>))
    sum[name] = sumCounts(sum[name], value);
  return sum;
}

/**
 * Sums an old histogram item into its new key under the new item's optimistic version (`hv`, as the aggregator
 * rewrites it) and deletes the old, in one transaction; a rewrite meanwhile fails the condition, and it is read again.
 */
async function mergeHistogram(old: Item, next: Item): Promise<void> {
  const newKey = { pk: String(next.pk), sk: String(next.sk) };
  for (;;) {
    const current = await getItem(newKey, { consistent: true });
    const hist = current?.hist
      ? JSON.stringify(sumCounts(JSON.parse(String(current.hist)), JSON.parse(String(old.hist ?? "{}"))))
      : old.hist;
    const version = current?.hv === undefined ? undefined : Number(current.hv);
    try {
      await transact(
        new Transaction()
          .put("new item", {
            Item: { ...old, ...newKey, hist, hv: Math.max(version ?? 0, Number(old.hv ?? 0)) + 1 },
            ConditionExpression: version === undefined ? "attribute_not_exists(hv)" : "hv = :version",
            ...(version === undefined ? {} : { ExpressionAttributeValues: { ":version": version } }),
          })
          .delete("old item", { Key: { pk: old.pk, sk: old.sk }, ConditionExpression: "attribute_exists(pk)" }),
      );
      return;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failed("new item")) throw error;
    }
  }
}
