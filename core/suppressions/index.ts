import * as v from "valibot";
import { actorId, eventActorFields, type Actor } from "#core/auth/actor";
import { SuppressionEntity } from "#core/db/entities/suppressions";
import { where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { conditionally, table, getItems, oneItem, type PlannedRead } from "#core/db/items";
import * as Events from "#core/events/index";
import { recordEvent, type EventRecordInput } from "#core/events/index";
import { Transaction, TransactionConditionFailed, transact } from "#core/db/transact";
import { nowIso, timestamp } from "#core/shared/ids";

/** Why a number is on the list. */
export const suppressionReasons = ["Manual", "OptOutKeyword", "ProviderOptOut"] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

/** Entries the contact asked for: lifted only by the contact (START/UNSTOP), never through the API. */
export const CONTACT_REASONS = new Set<SuppressionReason>(["OptOutKeyword", "ProviderOptOut"]);

export const SuppressionSchema = v.object({
  phoneNumber: v.string(),
  reason: v.picklist(suppressionReasons),
  note: v.nullable(v.string()),
  leadId: v.nullable(v.string()),
  createdBy: v.string(),
  createdAt: timestamp,
});
export type Suppression = v.InferOutput<typeof SuppressionSchema>;

/** The organization's suppression list: numbers never sent to (compliance). */

/** Adds a number (idempotent: an existing entry is kept as it was and returned). */
export async function add(
  organizationId: string,
  input: { phoneNumber: string; reason: SuppressionReason; note?: string; leadId?: string; actor?: Actor },
): Promise<{ suppression: Suppression; created: boolean }> {
  const suppression = newSuppression(input);
  // The entry and its SuppressionAdded event in one transaction: a crash between the two can no longer keep one alone.
  const transaction = new Transaction().put(
    "suppression",
    SuppressionEntity.create({ organizationId, ...suppression }),
  );
  Events.item(organizationId, addedEvent(input), transaction);
  const stored = await transact(transaction).then(
    () => true,
    (error: unknown) => {
      if (error instanceof TransactionConditionFailed && error.failedOnlyIn("suppression")) return false;
      throw error;
    },
  );
  if (!stored) {
    const existing = await find(organizationId, input.phoneNumber);
    // The contact's own opt-out outranks a manual entry: from now on only the contact can lift it.
    if (existing?.reason === "Manual" && CONTACT_REASONS.has(input.reason)) {
      await conditionally(
        table.update(
          SuppressionEntity.update(
            { organizationId, phoneNumber: input.phoneNumber },
            { reason: input.reason },
            { condition: where.equals("reason", "Manual") },
          ),
        ),
      );
      return { suppression: { ...existing, reason: input.reason }, created: false };
    }
    return { suppression: existing ?? suppression, created: false };
  }
  return { suppression, created: true };
}

/** Which of `phones` (E.164) are on the list: one BatchGet per 100 numbers. */
export async function suppressedAmong(organizationId: string, phones: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(phones)];
  const found = await getItems(
    unique.map((phone) => keys.suppression(organizationId, phone)),
    { attributes: ["phoneNumber"] },
  );
  return new Set(found.map((item) => String(item.phoneNumber)));
}

/** The read of one number's entry, for a batch with other reads (`readTogether`). */
export const findRead = (organizationId: string, e164: string): PlannedRead<Suppression | undefined> =>
  oneItem(SuppressionEntity.key({ organizationId, phoneNumber: e164 }), (item) =>
    item ? toSuppression(item) : undefined,
  );

export async function find(
  organizationId: string,
  e164: string,
  options: { consistent?: boolean } = {},
): Promise<Suppression | undefined> {
  const item = await SuppressionEntity.get({ organizationId, phoneNumber: e164 }, options);
  return item ? toSuppression(item) : undefined;
}

/** Removes a number; false when it was not listed. */
async function deleteSuppression(
  organizationId: string,
  e164: string,
  actor?: Actor,
  why = "removed from the suppression list",
  onlyReason?: SuppressionReason,
): Promise<boolean> {
  const deleted = await conditionally(
    table.delete(
      SuppressionEntity.remove(
        { organizationId, phoneNumber: e164 },
        // A manual entry replaced by the contact's own opt-out meanwhile is not removed.
        { condition: onlyReason ? where.all(where.stored(), where.equals("reason", onlyReason)) : where.stored() },
      ),
    ),
  );
  if (!deleted) return false;
  await recordRemoved(organizationId, e164, why, actor);
  return true;
}
export { deleteSuppression as delete };

export function toSuppression(item: Record<string, unknown>): Suppression {
  return {
    phoneNumber: item.phoneNumber as string,
    reason: item.reason as SuppressionReason,
    note: (item.note as string | null) ?? null,
    leadId: (item.leadId as string | null) ?? null,
    createdBy: (item.createdBy as string) ?? "system",
    createdAt: item.createdAt as string,
  };
}

export function newSuppression(input: {
  phoneNumber: string;
  reason: SuppressionReason;
  note?: string;
  leadId?: string;
  actor?: Actor;
}): Suppression {
  return {
    phoneNumber: input.phoneNumber,
    reason: input.reason,
    note: input.note ?? null,
    leadId: input.leadId ?? null,
    createdBy: input.actor ? actorId(input.actor) : "system",
    createdAt: nowIso(),
  };
}

export function addedEvent(input: {
  phoneNumber: string;
  reason: SuppressionReason;
  leadId?: string;
  actor?: Actor;
}): EventRecordInput {
  return suppressionEvent({
    eventType: "SuppressionAdded",
    description: `${input.phoneNumber} added to the suppression list (${input.reason}).`,
    complianceAction: "Suppressed",
    toPhoneNumber: input.phoneNumber,
    ...(input.leadId ? { leadId: input.leadId } : {}),
    relatedEntityType: "Suppression",
    relatedEntityId: input.phoneNumber,
    actor: input.actor,
  });
}

export function recordRemoved(organizationId: string, e164: string, why: string, actor?: Actor): Promise<void> {
  return recordSuppressionEvent(organizationId, {
    eventType: "SuppressionRemoved",
    description: `${e164} ${why}.`,
    complianceAction: "Unsuppressed",
    toPhoneNumber: e164,
    relatedEntityType: "Suppression",
    relatedEntityId: e164,
    actor,
  });
}

/** A change of the list, on the compliance timeline, naming who made it. */
async function recordSuppressionEvent(
  organizationId: string,
  input: Omit<EventRecordInput, "eventCategory"> & { actor?: Actor },
): Promise<void> {
  await recordEvent(organizationId, suppressionEvent(input));
}

/** A suppression list change as an event of the compliance timeline, by its actor. */
function suppressionEvent(input: Omit<EventRecordInput, "eventCategory"> & { actor?: Actor }): EventRecordInput {
  const { actor, ...event } = input;
  return {
    timelineCategory: "Compliance",
    timelineType: "Compliance",
    eventCategory: "Compliance",
    ...event,
    ...eventActorFields(actor),
  };
}
