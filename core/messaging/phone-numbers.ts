import { phoneNumberCount } from "#core/messaging/phone-number-count";
import { NumberRouteEntity, PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { where } from "#core/db/expression";
import { conditionally, getItemsAt, queryEntries, table, type Key } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { NotFoundError } from "#core/errors";
import type { Actor } from "#core/auth/actor";

/** A valid phone number in any common form, normalised to E.164. */
import { PhoneNumberSchema, type PhoneNumber } from "#core/messaging/phone-number-schema";
import type { PacedNumber } from "#core/messaging/pacing";

export const capabilities = ["sms", "mms", "voice"] as const;
export type Capability = (typeof capabilities)[number];

export { PhoneNumberSchema, type PhoneNumber };

/**
 * A number as sender choice sees it: with its next free send slot (epoch ms; 0 when never paced), and the lane a send
 * paces on (core/messaging/pacing.ts).
 */
export type SenderNumber = PhoneNumber & { paceNextAt: number; lane?: number };

/**
 * How long a warm instance picks senders from its listing of an organization's numbers (issue 27: a Query of the
 * numbers' index per dispatch). Safe because every pick reads each listed number's item again: a number deleted,
 * paused or unregistered since the listing is seen as soon as the read is (absent, or refused by its own item), and
 * the pacing gate's conditional write on the number refuses one deleted after it (`where.stored()`). Only a
 * number bought since is not offered until the listing expires (docs/decisions.md, tenth pass), or while the
 * numbers are saturated, until `BUSY_RELISTING_MS`; a listing whose numbers offer no sender at all is taken again at once
 * (`senders`' `fresh`), so it never fails a send. A minute: a new number is offered within one, and an organization
 * texting about once a minute lists its numbers once.
 */
export const SENDER_LISTING_MS = 60_000;
/**
 * Saturation, for sender choice: a pool of numbers none of which is free for this long (pacing, a carrier's rest) is
 * listed again when the kept listing is at least this old. A number is most often bought because the others are
 * saturated, and it then sends within seconds rather than after the listing's minute. While they stay saturated that
 * is at most one more listing per instance every 5 s.
 */
export const BUSY_RELISTING_MS = 5_000;
/** At most this many organizations' listings are kept (expired ones go first, then the oldest). */
const SENDER_LISTINGS_KEPT = 1_000;
const listings = new Map<string, { listedAt: number; keys: Key[] }>();

/** The keys of the organization's numbers, listed from their index (keys only, every page), as of `now`. */
async function listedNumbers(organizationId: string, now: number): Promise<Key[]> {
  const keys: Key[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryEntries({
      ...PhoneNumberEntity.queryPartition("byCreation", { organizationId }),
      ExclusiveStartKey: start,
    });
    keys.push(...(page.Items ?? []).map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })));
    start = page.LastEvaluatedKey;
  } while (start);
  listings.delete(organizationId);
  if (listings.size >= SENDER_LISTINGS_KEPT) {
    for (const [id, kept] of listings) if (now - kept.listedAt >= SENDER_LISTING_MS) listings.delete(id);
    if (listings.size >= SENDER_LISTINGS_KEPT) listings.delete(listings.keys().next().value!);
  }
  listings.set(organizationId, { listedAt: now, keys });
  return keys;
}

/** The organization and number a provider webhook's number routes to. */
export interface NumberRoute {
  organizationId: string;
  phoneNumberId: string;
  phoneNumber: string;
  /** Set once the number was deleted: late status callbacks still resolve, inbound messages are dropped. */
  releasedAt?: string;
}

/** Phone numbers the organization owns at the provider, used as senders. */

export { phoneNumberCount as count };

export async function fromId(actor: Actor, phoneNumberId: string): Promise<PhoneNumber> {
  const number = await find(actor.organizationId, phoneNumberId);
  if (!number) throw new NotFoundError("Phone number", phoneNumberId);
  return number;
}

/** The number if it exists (and was not deleted) in the organization. */
export async function find(organizationId: string, phoneNumberId: string): Promise<PhoneNumber | undefined> {
  const Item = await PhoneNumberEntity.get({ organizationId, id: phoneNumberId });
  return Item ? toPhoneNumber(Item) : undefined;
}

/** Every active number of the organization (sender selection; organizations own few numbers). */
export async function all(organizationId: string): Promise<PhoneNumber[]> {
  return (await queryAll(PhoneNumberEntity.query("byCreation", { organizationId }))).map(toPhoneNumber);
}

/**
 * Every active number with when its next send slot is free (sender choice and pacing, core/messaging/pacing.ts),
 * each read in one BatchGetItem: the numbers of this instance's listing while it is fresh
 * (`SENDER_LISTING_MS`), else of a new one (`fresh`: always), and the numbers named in `also` (a conversation's
 * sticky number, a caller's choice: bought after the listing, they are still found). `kept`: the listing was this
 * instance's earlier one, listed at `listedAt` (epoch ms).
 */
export async function senders(
  organizationId: string,
  options: { also?: (string | null | undefined)[]; fresh?: boolean } = {},
): Promise<{ numbers: SenderNumber[]; kept: boolean; listedAt: number }> {
  const now = Date.now();
  const listing = options.fresh ? undefined : listings.get(organizationId);
  const kept = listing !== undefined && now - listing.listedAt < SENDER_LISTING_MS;
  const listed = kept ? listing.keys : await listedNumbers(organizationId, now);
  const named = (options.also ?? []).flatMap((id) => (id ? [PhoneNumberEntity.key({ organizationId, id })] : []));
  const keys = [...new Map([...listed, ...named].map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  // Eventually consistent, as the listing itself always was (an index read): at one read unit per number a send, a
  // consistent read would double what every send pays for an organization's many numbers (~170 at the scale goal)
  // to see a change up to a second sooner; the gate's conditional write on the number decides in the end.
  const items = await getItemsAt(keys);
  const numbers = items.flatMap((item) =>
    item ? [{ ...toPhoneNumber(item), paceNextAt: pacingOf(item).paceNextAt }] : [],
  );
  return { numbers, kept, listedAt: kept ? listing.listedAt : now };
}

/** The organization a provider webhook's number belongs to (the one lookup not starting from an organization). */
export async function route(e164: string): Promise<NumberRoute | undefined> {
  const Item = await NumberRouteEntity.get({ phoneNumber: e164 });
  return Item ? (Item as unknown as NumberRoute) : undefined;
}

/** Where the carrier holds the number (10DLC assignment needs its carrier id); undefined when absent. */
export async function atCarrier(
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
}

/**
 * Records what registers a number and its status: its 10DLC campaign, or its toll-free verification
 * (core/carrier-registration owns both; null: nothing).
 */
export async function setRegistration(
  organizationId: string,
  phoneNumberId: string,
  registration: PhoneNumber["registration"],
): Promise<void> {
  await conditionally(
    table.update(
      PhoneNumberEntity.update({ organizationId, id: phoneNumberId }, { registration }, { condition: where.stored() }),
    ),
  );
}

/** Pauses (a reason) or resumes (null) a number; true when this call changed it (a number is paused or resumed once). */
export async function setPaused(
  organizationId: string,
  phoneNumberId: string,
  paused: PhoneNumber["paused"],
): Promise<boolean> {
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
}

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

/**
 * The pacing attributes of a phone-number item (read with the number, by sender choice). Here rather than in pacing.ts,
 * which imports phone parsing and the message lifecycle: reading a number must not bring the sending machinery.
 */
export function pacingOf(item: Record<string, unknown>): Pick<PacedNumber, "messagesPerSecond" | "paceNextAt"> {
  return {
    messagesPerSecond: typeof item.messagesPerSecond === "number" ? item.messagesPerSecond : null,
    paceNextAt: typeof item.paceNextAt === "number" ? item.paceNextAt : 0,
  };
}
