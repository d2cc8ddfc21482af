import * as v from "valibot";
import { capabilities, toPhoneNumber, type PhoneNumber } from "#core/messaging/phone-numbers";
import { maxChars, statedShape } from "#core/shared/validation";
import { PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { NotFoundError, ValidationError } from "#core/errors";
import * as UserLookups from "#core/users/lookups";
import * as Audit from "#core/audit/index";
import type { Actor } from "#core/auth/actor";
import { type Page, type PagingQuery } from "#core/shared/paging";
import { nowIso } from "#core/shared/ids";

/*
 * What only the phone number routes use: the list, the rename and assignment, and the request schemas of those and of
 * `GET /available-phone-numbers`. Apart from `PhoneNumbers` (the lookups every send, call and callback makes), so that
 * those functions do not bundle the listing, the audit trail and these schemas.
 */

/**
 * Body of `PUT /phone-numbers/{phoneNumberId}`: what the organization calls the number (null or empty clears it), and
 * whose own number it is (an active user; null puts it back in the shared pool). A field left out is kept.
 */
export const PhoneNumberUpdateSchema = v.strictObject({
  friendlyName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), maxChars(255)))),
  assignedUserId: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), maxChars(64)))),
});
export type PhoneNumberUpdate = v.InferOutput<typeof PhoneNumberUpdateSchema>;

/** Query of `GET /available-phone-numbers`. */
export const AvailableNumbersQuerySchema = v.strictObject({
  areaCode: v.optional(v.pipe(v.string(), v.regex(/^[2-9]\d{2}$/, "A three-digit North American area code."))),
  region: v.optional(v.pipe(v.string(), v.toUpperCase(), v.regex(/^[A-Z]{2}$/, "A two-letter state code."))),
  /** Comma-separated; every one is required of the numbers offered. */
  capabilities: v.optional(
    v.pipe(
      v.string(),
      statedShape({ pattern: "^\\s*(?:sms|mms|voice)(?:\\s*,\\s*(?:sms|mms|voice))*\\s*$" }),
      v.transform((value) =>
        value
          .split(",")
          .map((item) => item.trim())
          .filter(Boolean),
      ),
      v.array(v.picklist(capabilities, "Each capability must be one of: sms, mms, voice.")),
    ),
    "sms,voice",
  ),
  limit: v.optional(
    v.pipe(v.string(), v.regex(/^(?:[1-9]|[1-4]\d|50)$/, "A whole number from 1 to 50."), v.transform(Number)),
    "20",
  ),
});
export type AvailableNumbersQuery = v.InferOutput<typeof AvailableNumbersQuerySchema>;

export const AvailableNumberSchema = v.object({
  phoneNumber: v.string(),
  region: v.nullable(v.string()),
  locality: v.nullable(v.string()),
  capabilities: v.array(v.string()),
});
export const AvailableNumbersSchema = v.object({ items: v.array(AvailableNumberSchema) });

const listResource: ListResource<PhoneNumber> = {
  name: "phoneNumbers",
  fields: {
    phoneNumber: { get: (n) => n.phoneNumber, kind: "string", filter: true, sort: true, search: true },
    friendlyName: { get: (n) => n.friendlyName, kind: "string", filter: true, sort: true, search: true },
    areaCode: { get: (n) => n.areaCode, kind: "string", filter: true },
    lastUsedAt: { get: (n) => n.lastUsedAt, kind: "date", sort: true, range: true },
    createdAt: { get: (n) => n.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (n) => n.id,
  fromItem: toPhoneNumber,
  // Each number is in a partition of its own (issue 27): the organization's numbers are its creation index.
  candidates: (organizationId) => PhoneNumberEntity.query("byCreation", { organizationId }),
  orders: {
    createdAt: (organizationId, _context, forward) =>
      PhoneNumberEntity.plan("byCreation", { organizationId }, { forward }),
  },
};

export const ListPhoneNumbersSchema = listQuerySchema(listResource);

/** The phone number routes' list and edit (`GET /phone-numbers`, `PUT /phone-numbers/{phoneNumberId}`). */

export async function list(actor: Actor, query: PagingQuery): Promise<Page<PhoneNumber>> {
  return listPage(listResource, actor.organizationId, query);
}

/**
 * Renames a number and sets whose own number it is (the number, its carrier and its campaign are not the owner's to
 * edit), with its audit entry in the same transaction. An agent's number must name an active user of the
 * organization (400 otherwise).
 */
export async function update(actor: Actor, phoneNumberId: string, update: PhoneNumberUpdate): Promise<PhoneNumber> {
  const identity = { organizationId: actor.organizationId, id: phoneNumberId };
  if (update.assignedUserId && !(await UserLookups.isActive(actor.organizationId, update.assignedUserId)))
    throw new ValidationError("A number can only be given to an active user of the organization.", [
      { pointer: "/assignedUserId", detail: `No active user ${update.assignedUserId}.` },
    ]);
  return Audit.commit(actor, async (tx) => {
    const stored = await PhoneNumberEntity.get(identity, { consistent: true });
    if (!stored) throw new NotFoundError("Phone number", phoneNumberId);
    const before = toPhoneNumber(stored);
    const wanted = {
      ...(update.friendlyName !== undefined ? { friendlyName: update.friendlyName || null } : {}),
      ...(update.assignedUserId !== undefined ? { assignedUserId: update.assignedUserId } : {}),
    };
    const changed = Object.entries(wanted).filter(([field, value]) => before[field as keyof PhoneNumber] !== value);
    if (changed.length === 0) return { result: before };
    const changes = { ...Object.fromEntries(changed), modifiedAt: nowIso() };
    const after = { ...before, ...changes };
    tx.update("change", PhoneNumberEntity.update(identity, changes, { condition: Audit.unchangedSince(stored) }));
    const action = "assignedUserId" in changes ? "phoneNumber.assigned" : "phoneNumber.renamed";
    return {
      change: { action, resourceType: "PhoneNumber", resourceId: phoneNumberId, before, after },
      result: after,
    };
  });
}
