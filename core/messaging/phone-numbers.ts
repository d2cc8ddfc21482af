import * as v from "valibot";
import { phoneNumberCount } from "#core/messaging/phone-number-count";
import { transact } from "#core/db/transact";
import { maxChars, statedShape } from "#core/shared/validation";
import { actorId, type Actor } from "#core/auth/actor";
import { Billing, TransactionConditionFailed } from "#core/billing/index";
import { PhoneNumberFees } from "#core/billing/number-fees";
import { entities, keys } from "#core/db/keys";
import { conditionally, table } from "#core/db/items";
import { keyOrder, listPage, prefixQuery, type ListResource, listQuerySchema } from "#core/db/list";
import { queryAll } from "#core/db/query";
import { config } from "#core/config";
import { CarrierUnavailableError, ConflictError, NotFoundError, UnprocessableError } from "#core/errors";
import { MessagingEvents } from "#core/messaging/timeline";
import { organizationProvider } from "#core/messaging/provider-choice";
import { providerByName } from "#core/providers/index";
import { ProviderError, type AvailableNumber, type NumberWebhooks, type ProviderPort } from "#core/providers/port";
import { newId, nowIso, timestamp } from "#core/shared/ids";
import * as Money from "#core/shared/money";
import { type Page, type PagingQuery } from "#core/shared/paging";
import { parsePhone, toE164 } from "#core/shared/phone";

/** A valid phone number in any common form, normalised to E.164. */
import { PhoneNumberInput } from "#core/shared/phone-input";
import { PhoneNumberSchema, type PhoneNumber } from "#core/messaging/phone-number-schema";
export { PhoneNumberInput };

export const capabilities = ["sms", "mms", "voice"] as const;
export type Capability = (typeof capabilities)[number];

/** Body of `POST /phone-numbers`. */
export const PhoneNumberRequestSchema = v.strictObject({
  phoneNumber: PhoneNumberInput,
  /**
   * true: buy the number at the carrier (one from `GET /available-phone-numbers`).
   * false (default): register a number the carrier account already holds,
   * which the carrier must confirm.
   */
  purchase: v.optional(v.boolean(), false),
  friendlyName: v.optional(v.pipe(v.string(), v.trim(), maxChars(255))),
  capabilities: v.optional(
    v.pipe(v.array(v.picklist(capabilities, "Each capability must be one of: sms, mms, voice.")), v.minLength(1), v.maxLength(3)),
    ["sms", "mms", "voice"],
  ),
});
export type PhoneNumberRequest = v.InferOutput<typeof PhoneNumberRequestSchema>;

export { PhoneNumberSchema, type PhoneNumber };


/** Query of `GET /available-phone-numbers`. */
export const AvailableNumbersQuerySchema = v.strictObject({
  areaCode: v.optional(v.pipe(v.string(), v.regex(/^[2-9]\d{2}$/, "A three-digit North American area code."))),
  region: v.optional(v.pipe(v.string(), v.toUpperCase(), v.regex(/^[A-Z]{2}$/, "A two-letter state code."))),
  /** Comma-separated; every one is required of the numbers offered. */
  capabilities: v.optional(
    v.pipe(
      v.string(),
      statedShape({ pattern: "^\\s*(?:sms|mms|voice)(?:\\s*,\\s*(?:sms|mms|voice))*\\s*$" }),
      v.transform((value) => value.split(",").map((item) => item.trim()).filter(Boolean)),
      v.array(v.picklist(capabilities, "Each capability must be one of: sms, mms, voice.")),
    ),
    "sms,voice",
  ),
  limit: v.optional(v.pipe(v.string(), v.regex(/^(?:[1-9]|[1-4]\d|50)$/, "A whole number from 1 to 50."), v.transform(Number)), "20"),
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
  candidates: (organizationId) => prefixQuery(keys.phoneNumberPrefix(organizationId)),
  orders: { createdAt: keyOrder(keys.phoneNumberPrefix) },
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


  /**
   * Adds a number; a number already routed to an organization (this or another)
   * is a 409, a wallet that cannot pay its first month (or is suspended) a 402.
   */
  async create(actor: Actor, input: PhoneNumberRequest): Promise<PhoneNumber> {
    const provider = await numberProvider(actor.organizationId);
    const held = input.purchase ? undefined : await carrier(() => provider.findOwnedNumber!(input.phoneNumber));
    if (!input.purchase && !held) {
      throw new UnprocessableError(`${input.phoneNumber} is not held by this platform's ${provider.name} account; buy it (purchase: true) or port it there first.`);
    }
    const now = nowIso();
    const number: PhoneNumber = {
      id: newId(),
      phoneNumber: input.phoneNumber,
      friendlyName: input.friendlyName ?? null,
      capabilities: [...new Set(input.capabilities)],
      areaCode: parsePhone(input.phoneNumber)?.areaCode ?? null,
      lastUsedAt: null,
      createdAt: now,
      modifiedAt: null,
    };
    const route: NumberRoute = { organizationId: actor.organizationId, phoneNumberId: number.id, phoneNumber: number.phoneNumber };
    // The first month's fee (prorated) is charged with the number: refused (402) unless the wallet covers it.
    const fee = await PhoneNumberFees.firstMonth(actor.organizationId, number, actorId(actor));
    const atCarrier = { provider: provider.name, ...(held ? { providerNumberId: held.providerNumberId } : {}) };
    try {
      await Billing.commit([
        {
          Put: {
            Item: { ...keys.phoneNumber(actor.organizationId, number.id), entity: entities.phoneNumber, ...number, ...atCarrier },
            ConditionExpression: "attribute_not_exists(pk)",
          },
        },
        {
          Put: {
            Item: { ...keys.numberRoute(number.phoneNumber), entity: entities.numberRoute, ...route },
            ConditionExpression: "attribute_not_exists(pk) OR attribute_exists(releasedAt)",
          },
        },
        ...fee.items,
      ]);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      if (error.failedIndexes.some((index) => index < 2)) throw new ConflictError(`${number.phoneNumber} is already registered to an organization.`);
      throw await fee.refusal();
    }
    // The number is ours (route claimed, fee paid): only now is it bought or pointed at us at the carrier.
    try {
      if (held) await carrier(() => provider.configureNumber!(held.providerNumberId, numberWebhooks(provider.name)));
      else {
        const bought = await carrier(() => provider.buyNumber!(number.phoneNumber, numberWebhooks(provider.name)));
        await table.update({
          Key: keys.phoneNumber(actor.organizationId, number.id),
          UpdateExpression: "SET providerNumberId = :id",
          ExpressionAttributeValues: { ":id": bought.providerNumberId },
        });
      }
    } catch (error) {
      await undoAdd(actor, number, fee.fee);
      throw error;
    }
    await MessagingEvents.record(actor.organizationId, {
      eventType: "PhoneNumberAdded",
      eventCategory: "PhoneNumber",
      description: `Phone number ${number.phoneNumber} added.`,
      relatedEntityType: "PhoneNumber",
      relatedEntityId: number.id,
      fromPhoneNumberId: number.id,
      fromPhoneNumber: number.phoneNumber,
      actor,
    });
    return number;
  },

  async fromId(actor: Actor, phoneNumberId: string): Promise<PhoneNumber> {
    const number = await PhoneNumbers.find(actor.organizationId, phoneNumberId);
    if (!number) throw new NotFoundError("Phone number", phoneNumberId);
    return number;
  },

  /** The number if it exists (and was not deleted) in the organization. */
  async find(organizationId: string, phoneNumberId: string): Promise<PhoneNumber | undefined> {
    const { Item } = await table.get({ Key: keys.phoneNumber(organizationId, phoneNumberId) });
    return Item ? toPhoneNumber(Item) : undefined;
  },

  async list(actor: Actor, query: PagingQuery): Promise<Page<PhoneNumber>> {
    return listPage(listResource, actor.organizationId, query);
  },

  /** Every active number of the organization (sender selection; organizations own few numbers). */
  async all(organizationId: string): Promise<PhoneNumber[]> {
    return (await queryAll(prefixQuery(keys.phoneNumberPrefix(organizationId)))).map(toPhoneNumber);
  },

  /**
   * Deletes a number (endpoint 12). It is no longer chosen as a sender; its route
   * is kept, marked released, so late delivery receipts still find the organization.
   */
  async remove(actor: Actor, phoneNumberId: string): Promise<void> {
    const number = await PhoneNumbers.fromId(actor, phoneNumberId);
    await releaseAtCarrier(actor.organizationId, phoneNumberId);
    await forget(actor, number);
    await MessagingEvents.record(actor.organizationId, {
      eventType: "PhoneNumberDeleted",
      eventCategory: "PhoneNumber",
      description: `Phone number ${number.phoneNumber} deleted and released at the carrier; conversations sticky to it move to another number on their next message.`,
      relatedEntityType: "PhoneNumber",
      relatedEntityId: number.id,
      fromPhoneNumberId: number.id,
      fromPhoneNumber: number.phoneNumber,
      actor,
    });
  },

  /** `GET /available-phone-numbers`: what the carrier offers now (nothing is held until bought). */
  async available(actor: Actor, query: AvailableNumbersQuery): Promise<{ items: AvailableNumber[] }> {
    const provider = await numberProvider(actor.organizationId);
    const items = await carrier(() =>
      provider.searchAvailableNumbers!({
        country: "US",
        ...(query.areaCode ? { areaCode: query.areaCode } : {}),
        ...(query.region ? { region: query.region } : {}),
        capabilities: query.capabilities,
        limit: query.limit,
      }),
    );
    return { items };
  },

  /** The organization a provider webhook's number belongs to (the one lookup not starting from an organization). */
  async route(e164: string): Promise<NumberRoute | undefined> {
    const { Item } = await table.get({ Key: keys.numberRoute(e164) });
    return Item ? (Item as unknown as NumberRoute) : undefined;
  },

  /** The route of our number as a provider callback writes it (any format); undefined for a malformed number or a number of nobody. */
  async routeOf(raw: string | undefined): Promise<NumberRoute | undefined> {
    const e164 = raw ? toE164(raw) : undefined;
    return e164 ? PhoneNumbers.route(e164) : undefined;
  },

  /** Records that a number just sent (least-recently-used selection); best effort. */
  async touch(organizationId: string, phoneNumberId: string, at: string): Promise<void> {
    await conditionally(
      table.update({
        Key: keys.phoneNumber(organizationId, phoneNumberId),
        UpdateExpression: "SET lastUsedAt = :at",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":at": at },
      }),
    );
  },
};

/** Deletes the number and marks its route released (late receipts still find the organization); 404 when it is gone already. */
async function forget(actor: Actor, number: PhoneNumber): Promise<void> {
  const phoneNumberId = number.id;
  const now = nowIso();
  try {
    await transact([
      {
        Delete: {
          Key: keys.phoneNumber(actor.organizationId, phoneNumberId),
          ConditionExpression: "attribute_exists(pk)",
        },
      },
      {
        Update: {
          Key: keys.numberRoute(number.phoneNumber),
          UpdateExpression: "SET releasedAt = :now",
          ConditionExpression: "organizationId = :org AND phoneNumberId = :id",
          ExpressionAttributeValues: { ":now": now, ":org": actor.organizationId, ":id": phoneNumberId },
        },
      },
    ]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed) throw new NotFoundError("Phone number", phoneNumberId);
    throw error;
  }
}

/**
 * Releases the number at the carrier before it is forgotten here, so it is
 * truly out of use; a carrier that fails answers 502 and the number stays
 * (the DELETE can be repeated). Numbers registered before carriers were
 * wired (no carrier id) have nothing to release.
 */
async function releaseAtCarrier(organizationId: string, phoneNumberId: string): Promise<void> {
  const { Item } = await table.get({ Key: keys.phoneNumber(organizationId, phoneNumberId) });
  const providerNumberId = Item?.providerNumberId as string | undefined;
  const provider = Item?.provider ? providerByName(String(Item.provider)) : undefined;
  if (!providerNumberId || !provider?.releaseNumber) return;
  await carrier(() => provider.releaseNumber!(providerNumberId));
}

/** A purchase or registration the carrier refused after the number was stored: forgotten again, its fee refunded. */
async function undoAdd(actor: Actor, number: PhoneNumber, fee: string): Promise<void> {
  await forget(actor, number);
  if (Money.compare(fee, "0") > 0) await Billing.adjust(actor.organizationId, fee, `Refund: ${number.phoneNumber} could not be set up at the carrier`);
}

/** The carrier that buys and holds the organization's numbers (its provider); it must support number operations. */
async function numberProvider(organizationId: string): Promise<ProviderPort & Required<Pick<ProviderPort, "searchAvailableNumbers" | "buyNumber" | "findOwnedNumber" | "configureNumber" | "releaseNumber">>> {
  const provider = await carrier(() => organizationProvider(organizationId));
  if (!provider.searchAvailableNumbers || !provider.buyNumber || !provider.findOwnedNumber || !provider.configureNumber || !provider.releaseNumber) {
    throw new CarrierUnavailableError(`The ${provider.name} provider cannot manage numbers.`);
  }
  return provider as Awaited<ReturnType<typeof numberProvider>>;
}

/** Where the carrier sends a number's inbound messages and calls. */
function numberWebhooks(provider: string): NumberWebhooks {
  const base = `${config.publicBaseUrl.replace(/\/$/, "")}/webhooks/${provider}`;
  return { smsUrl: `${base}/messages/inbound`, voiceUrl: `${base}/calls/inbound`, voiceStatusCallbackUrl: `${base}/calls/status` };
}

/**
 * A carrier request on behalf of an API call: a refusal of the number itself
 * (taken meanwhile, not available) is a 409; the carrier failing or refusing
 * us (down, credentials) is a 502. Nothing here is retried blindly.
 */
async function carrier<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.kind === "permanent" && error.details.httpStatus !== undefined && error.details.httpStatus < 500 && error.details.httpStatus !== 401 && error.details.httpStatus !== 403) {
      throw new ConflictError(`The carrier refused the number: ${error.message} (${error.code}).`);
    }
    throw new CarrierUnavailableError(`The carrier could not complete the request: ${error.message} (${error.code}). Nothing was changed; try again.`);
  }
}

function toPhoneNumber(item: Record<string, unknown>): PhoneNumber {
  return {
    id: item.id as string,
    phoneNumber: item.phoneNumber as string,
    friendlyName: (item.friendlyName as string | null) ?? null,
    capabilities: (item.capabilities as string[]) ?? [],
    areaCode: (item.areaCode as string | null) ?? null,
    lastUsedAt: (item.lastUsedAt as string | null) ?? null,
    createdAt: item.createdAt as string,
    modifiedAt: (item.modifiedAt as string | null) ?? null,
  };
}
