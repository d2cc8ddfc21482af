import * as v from "valibot";
import { maxChars } from "#core/shared/validation";
import { actorId, eventActorFields, type Actor } from "#core/auth/actor";
import { Audit } from "#core/audit/index";
import { SuppressionEntity } from "#core/db/entities/suppressions";
import { where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { conditionally, table, getItems, oneItem, type PlannedRead } from "#core/db/items";
import { keyOrder, listPage, prefixQuery, type ListResource, listQuerySchema } from "#core/db/list";
import { ConflictError, NotFoundError } from "#core/errors";
import { PhoneNumberInput, phoneFromPath } from "#core/shared/phone-input";
import { Events, recordEvent, type EventRecordInput } from "#core/events/index";
import { Transaction, TransactionConditionFailed, transact } from "#core/db/transact";
import { nowIso, timestamp } from "#core/shared/ids";
import { type Page, type PagingQuery } from "#core/shared/paging";

/** Why a number is on the list. */
export const suppressionReasons = ["Manual", "OptOutKeyword", "ProviderOptOut"] as const;
export type SuppressionReason = (typeof suppressionReasons)[number];

/** Entries the contact asked for: lifted only by the contact (START/UNSTOP), never through the API. */
const CONTACT_REASONS = new Set<SuppressionReason>(["OptOutKeyword", "ProviderOptOut"]);

/** Body of `POST /suppressions`. */
export const SuppressionRequestSchema = v.strictObject({
  phoneNumber: PhoneNumberInput,
  note: v.optional(v.pipe(v.string(), v.trim(), maxChars(500))),
});
export type SuppressionRequest = v.InferOutput<typeof SuppressionRequestSchema>;

export const SuppressionSchema = v.object({
  phoneNumber: v.string(),
  reason: v.picklist(suppressionReasons),
  note: v.nullable(v.string()),
  leadId: v.nullable(v.string()),
  createdBy: v.string(),
  createdAt: timestamp,
});
export type Suppression = v.InferOutput<typeof SuppressionSchema>;

const listResource: ListResource<Suppression> = {
  name: "suppressions",
  fields: {
    phoneNumber: { get: (s) => s.phoneNumber, kind: "string", filter: true, sort: true, search: true },
    reason: { get: (s) => s.reason, kind: "string", filter: true },
    leadId: { get: (s) => s.leadId, kind: "string", filter: true },
    note: { get: (s) => s.note, kind: "string", search: true },
    createdAt: { get: (s) => s.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (s) => s.phoneNumber,
  fromItem: toSuppression,
  candidates: (organizationId) => prefixQuery(keys.suppressionPrefix(organizationId)),
  orders: {
    phoneNumber: keyOrder(keys.suppressionPrefix),
    createdAt: (organizationId, _context, forward) =>
      SuppressionEntity.plan("byCreated", { organizationId }, { forward }),
  },
};

export const ListSuppressionsSchema = listQuerySchema(listResource);

/** The organization's suppression list: numbers never sent to (compliance). */
export const Suppressions = {
  /** Adds a number (idempotent: an existing entry is kept as it was and returned). */
  async add(
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
      const existing = await Suppressions.find(organizationId, input.phoneNumber);
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
  },

  /**
   * `POST /suppressions`: a manual entry by the caller, stored with its audit entry (an existing entry is kept as
   * it was and returned, with no entry: nothing changed).
   */
  async create(actor: Actor, input: SuppressionRequest): Promise<Suppression> {
    const { organizationId } = actor;
    const added = { ...input, reason: "Manual" as const, actor };
    return Audit.commit(actor, async (tx) => {
      const existing = await Suppressions.find(organizationId, input.phoneNumber, { consistent: true });
      if (existing) return { result: existing };
      const suppression = newSuppression(added);
      tx.put("change", SuppressionEntity.create({ organizationId, ...suppression }));
      Events.item(organizationId, addedEvent(added), tx);
      return { change: { ...audit("added", suppression.phoneNumber), after: suppression }, result: suppression };
    });
  },

  /** Which of `phones` (E.164) are on the list: one BatchGet per 100 numbers. */
  async suppressedAmong(organizationId: string, phones: readonly string[]): Promise<Set<string>> {
    const unique = [...new Set(phones)];
    const found = await getItems(
      unique.map((phone) => keys.suppression(organizationId, phone)),
      { attributes: ["phoneNumber"] },
    );
    return new Set(found.map((item) => String(item.phoneNumber)));
  },

  /** The read of one number's entry, for a batch with other reads (`readTogether`). */
  findRead: (organizationId: string, e164: string): PlannedRead<Suppression | undefined> =>
    oneItem(SuppressionEntity.key({ organizationId, phoneNumber: e164 }), (item) =>
      item ? toSuppression(item) : undefined,
    ),

  async find(
    organizationId: string,
    e164: string,
    options: { consistent?: boolean } = {},
  ): Promise<Suppression | undefined> {
    const item = await SuppressionEntity.get({ organizationId, phoneNumber: e164 }, options);
    return item ? toSuppression(item) : undefined;
  },

  /** Removes a number; false when it was not listed. */
  async delete(
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
  },

  /**
   * `DELETE /suppressions/{phone}`: the path number is URL-decoded and
   * normalised; unknown → 404. Only a manual entry can be removed this way:
   * one the contact asked for (STOP, the carrier's opt-out, error 21610) is
   * lifted only by the contact texting START/UNSTOP, so it is a 409 whoever
   * calls. The removal's event names the actor.
   */
  async remove(actor: Actor, rawPhone: string): Promise<void> {
    const e164 = phoneFromPath(rawPhone, "phone");
    const { organizationId } = actor;
    await Audit.commit(actor, async (tx) => {
      const listed = await Suppressions.find(organizationId, e164, { consistent: true });
      if (!listed) throw new NotFoundError("Suppression", e164);
      if (CONTACT_REASONS.has(listed.reason)) {
        throw new ConflictError(
          `${e164} opted out itself (${listed.reason}); only the contact can lift it, by texting START or UNSTOP.`,
        );
      }
      // Still manual: the contact's own opt-out meanwhile makes this a 409 on the next read.
      tx.delete(
        "change",
        SuppressionEntity.remove(
          { organizationId, phoneNumber: e164 },
          { condition: where.equals("reason", "Manual") },
        ),
      );
      tx.afterCommit(() => recordRemoved(organizationId, e164, "removed from the suppression list", actor));
      return { change: { ...audit("removed", e164), before: listed }, result: undefined };
    });
  },

  async list(actor: Actor, query: PagingQuery): Promise<Page<Suppression>> {
    return listPage(listResource, actor.organizationId, query);
  },
};

function toSuppression(item: Record<string, unknown>): Suppression {
  return {
    phoneNumber: item.phoneNumber as string,
    reason: item.reason as SuppressionReason,
    note: (item.note as string | null) ?? null,
    leadId: (item.leadId as string | null) ?? null,
    createdBy: (item.createdBy as string) ?? "system",
    createdAt: item.createdAt as string,
  };
}

function newSuppression(input: {
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

/** An audit entry's action and resource for the number. */
function audit(verb: string, e164: string) {
  return { action: `suppression.${verb}`, resourceType: "Suppression", resourceId: e164 };
}

function addedEvent(input: {
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

function recordRemoved(organizationId: string, e164: string, why: string, actor?: Actor): Promise<void> {
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
