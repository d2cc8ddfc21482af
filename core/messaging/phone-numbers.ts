import * as v from "valibot";
import { phoneNumberCount } from "#core/messaging/phone-number-count";
import { maxChars, statedShape } from "#core/shared/validation";
import { NumberRouteEntity, PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import { listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { queryAll } from "#core/db/query";
import { NotFoundError, ValidationError } from "#core/errors";
import { UserLookups } from "#core/users/lookups";
import { Audit } from "#core/audit/index";
import type { Actor } from "#core/auth/actor";
import { type Page, type PagingQuery } from "#core/shared/paging";
import { nowIso } from "#core/shared/ids";

/** A valid phone number in any common form, normalised to E.164. */
import { PhoneNumberSchema, type PhoneNumber } from "#core/messaging/phone-number-schema";
import { pacingOf } from "#core/messaging/pacing";

export const capabilities = ["sms", "mms", "voice"] as const;
export type Capability = (typeof capabilities)[number];

export { PhoneNumberSchema, type PhoneNumber };

/**
 * Body of `PUT /phone-numbers/{phoneNumberId}`: what the organization calls the number (null or empty clears it), and
 * whose own number it is (an active user; null puts it back in the shared pool). A field left out is kept.
 */
export const PhoneNumberUpdateSchema = v.strictObject({
  friendlyName: v.optional(v.nullable(v.pipe(v.string(), v.trim(), maxChars(255)))),
  assignedUserId: v.optional(v.nullable(v.pipe(v.string(), v.minLength(1), maxChars(64)))),
});
export type PhoneNumberUpdate = v.InferOutput<typeof PhoneNumberUpdateSchema>;

/** A number as sender choice sees it: with its next free send slot (epoch ms; 0 when never paced). */
export type SenderNumber = PhoneNumber & { paceNextAt: number };

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

/** The organization and number a provider webhook's number routes to. */
export interface NumberRoute {
  organizationId: string;
  phoneNumberId: string;
  phoneNumber: string;
  /** Set once the number was deleted: late status callbacks still resolve, inbound messages are dropped. */
  releasedAt?: string;
}

/** Phone numbers the organization owns at the provider, used as senders. */
export const PhoneNumbers = {
  count: phoneNumberCount,

  async fromId(actor: Actor, phoneNumberId: string): Promise<PhoneNumber> {
    const number = await PhoneNumbers.find(actor.organizationId, phoneNumberId);
    if (!number) throw new NotFoundError("Phone number", phoneNumberId);
    return number;
  },

  /** The number if it exists (and was not deleted) in the organization. */
  async find(organizationId: string, phoneNumberId: string): Promise<PhoneNumber | undefined> {
    const Item = await PhoneNumberEntity.get({ organizationId, id: phoneNumberId });
    return Item ? toPhoneNumber(Item) : undefined;
  },

  async list(actor: Actor, query: PagingQuery): Promise<Page<PhoneNumber>> {
    return listPage(listResource, actor.organizationId, query);
  },

  /** Every active number of the organization (sender selection; organizations own few numbers). */
  async all(organizationId: string): Promise<PhoneNumber[]> {
    return (await queryAll(PhoneNumberEntity.query("byCreation", { organizationId }))).map(toPhoneNumber);
  },

  /** Every active number with when its next send slot is free (sender choice and pacing, core/messaging/pacing.ts): the same one query. */
  async senders(organizationId: string): Promise<SenderNumber[]> {
    return (await queryAll(PhoneNumberEntity.query("byCreation", { organizationId }))).map((item) => ({
      ...toPhoneNumber(item),
      paceNextAt: pacingOf(item).paceNextAt,
    }));
  },

  /** The organization a provider webhook's number belongs to (the one lookup not starting from an organization). */
  async route(e164: string): Promise<NumberRoute | undefined> {
    const Item = await NumberRouteEntity.get({ phoneNumber: e164 });
    return Item ? (Item as unknown as NumberRoute) : undefined;
  },

  /** Where the carrier holds the number (10DLC assignment needs its carrier id); undefined when absent. */
  async atCarrier(
    organizationId: string,
    phoneNumberId: string,
  ): Promise<{ phoneNumber: string; provider?: string; providerNumberId?: string } | undefined> {
    const Item = await PhoneNumberEntity.get({ organizationId, id: phoneNumberId });
    if (!Item) return undefined;
    return {
      phoneNumber: String(Item.phoneNumber),
      ...(Item.provider ? { provider: String(Item.provider) } : {}),
      ...(Item.providerNumberId ? { providerNumberId: String(Item.providerNumberId) } : {}),
    };
  },

  /**
   * Records what registers a number and its status: its 10DLC campaign, or its toll-free verification
   * (core/carrier-registration owns both; null: nothing).
   */
  async setRegistration(
    organizationId: string,
    phoneNumberId: string,
    registration: PhoneNumber["registration"],
  ): Promise<void> {
    await conditionally(
      table.update(
        PhoneNumberEntity.update(
          { organizationId, id: phoneNumberId },
          { registration },
          { condition: where.stored() },
        ),
      ),
    );
  },

  /** Pauses (a reason) or resumes (null) a number; true when this call changed it (a number is paused or resumed once). */
  async setPaused(organizationId: string, phoneNumberId: string, paused: PhoneNumber["paused"]): Promise<boolean> {
    const changed = await conditionally(
      table.update(
        PhoneNumberEntity.update(
          { organizationId, id: phoneNumberId },
          { paused },
          { condition: where.all(where.stored(), paused ? where.absentOrNull("paused") : where.isMap("paused")) },
        ),
      ),
    );
    return changed !== undefined;
  },

  /**
   * Renames a number and sets whose own number it is (the number, its carrier and its campaign are not the owner's to
   * edit), with its audit entry in the same transaction. An agent's number must name an active user of the
   * organization (400 otherwise).
   */
  async update(actor: Actor, phoneNumberId: string, update: PhoneNumberUpdate): Promise<PhoneNumber> {
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
  },
};

/** A stored number as the API shows it. */
export function toPhoneNumber(item: Record<string, unknown>): PhoneNumber {
  return {
    id: item.id as string,
    phoneNumber: item.phoneNumber as string,
    friendlyName: (item.friendlyName as string | null) ?? null,
    capabilities: (item.capabilities as string[]) ?? [],
    areaCode: (item.areaCode as string | null) ?? null,
    lastUsedAt: (item.lastUsedAt as string | null) ?? null,
    createdAt: item.createdAt as string,
    modifiedAt: (item.modifiedAt as string | null) ?? null,
    registration: item.registration
      ? // Stored before toll-free verification: every registration was a 10DLC campaign's.
        { kind: "TenDlcCampaign", ...(item.registration as Omit<NonNullable<PhoneNumber["registration"]>, "kind">) }
      : null,
    paused: (item.paused as PhoneNumber["paused"] | undefined) ?? null,
    messagesPerSecond: pacingOf(item).messagesPerSecond,
    assignedUserId: (item.assignedUserId as string | null | undefined) ?? null,
  };
}
