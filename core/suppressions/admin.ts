import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import * as Audit from "#core/audit/index";
import { SuppressionEntity } from "#core/db/entities/suppressions";
import { where } from "#core/db/expression";
import { listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { ConflictError, NotFoundError } from "#core/errors";
import * as Events from "#core/events/index";
import type { Page, PagingQuery } from "#core/shared/paging";
import { PhoneNumberInput, phoneFromPath } from "#core/shared/phone-input";
import { maxChars } from "#core/shared/validation";
import * as Suppressions from "#core/suppressions/index";
import {
  addedEvent,
  CONTACT_REASONS,
  newSuppression,
  recordRemoved,
  toSuppression,
  type Suppression,
} from "#core/suppressions/index";

/*
 * The suppression routes' own verbs (a manual entry added or removed with its audit entry, the list) and their
 * request schemas. Apart from `Suppressions` (what every send, call and carrier callback checks and records), so that
 * those functions do not bundle the audit trail, the listing and the request schemas.
 */

/** Body of `POST /suppressions`. */
export const SuppressionRequestSchema = v.strictObject({
  phoneNumber: PhoneNumberInput,
  note: v.optional(v.pipe(v.string(), v.trim(), maxChars(500))),
});
export type SuppressionRequest = v.InferOutput<typeof SuppressionRequestSchema>;

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
  // Each entry is in a partition of its own (issue 27): the organization's entries are its number index.
  candidates: (organizationId) => SuppressionEntity.query("byNumber", { organizationId }),
  orders: {
    phoneNumber: (organizationId, _context, forward) =>
      SuppressionEntity.plan("byNumber", { organizationId }, { forward }),
    createdAt: (organizationId, _context, forward) =>
      SuppressionEntity.plan("byCreated", { organizationId }, { forward }),
  },
};

export const ListSuppressionsSchema = listQuerySchema(listResource);

/** An audit entry's action and resource for the number. */
function audit(verb: string, e164: string) {
  return { action: `suppression.${verb}`, resourceType: "Suppression", resourceId: e164 };
}

/** `POST /suppressions`, `DELETE /suppressions/{phone}` and the list. */

/**
 * `POST /suppressions`: a manual entry by the caller, stored with its audit entry (an existing entry is kept as
 * it was and returned, with no entry: nothing changed).
 */
export async function create(actor: Actor, input: SuppressionRequest): Promise<Suppression> {
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
}

/**
 * `DELETE /suppressions/{phone}`: the path number is URL-decoded and
 * normalised; unknown → 404. Only a manual entry can be removed this way:
 * one the contact asked for (STOP, the carrier's opt-out, error 21610) is
 * lifted only by the contact texting START/UNSTOP, so it is a 409 whoever
 * calls. The removal's event names the actor.
 */
export async function remove(actor: Actor, rawPhone: string): Promise<void> {
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
      SuppressionEntity.remove({ organizationId, phoneNumber: e164 }, { condition: where.equals("reason", "Manual") }),
    );
    tx.afterCommit(() => recordRemoved(organizationId, e164, "removed from the suppression list", actor));
    return { change: { ...audit("removed", e164), before: listed }, result: undefined };
  });
}

export async function list(actor: Actor, query: PagingQuery): Promise<Page<Suppression>> {
  return listPage(listResource, actor.organizationId, query);
}
