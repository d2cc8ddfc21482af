import { phoneNumberCount } from "#core/messaging/phone-number-count";
import { NumberRouteEntity, PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { NotFoundError } from "#core/errors";
import type { Actor } from "#core/auth/actor";

/** A valid phone number in any common form, normalised to E.164. */
import { PhoneNumberSchema, type PhoneNumber } from "#core/messaging/phone-number-schema";
import { pacingOf } from "#core/messaging/pacing";

export const capabilities = ["sms", "mms", "voice"] as const;
export type Capability = (typeof capabilities)[number];

export { PhoneNumberSchema, type PhoneNumber };

/** A number as sender choice sees it: with its next free send slot (epoch ms; 0 when never paced). */
export type SenderNumber = PhoneNumber & { paceNextAt: number };

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
