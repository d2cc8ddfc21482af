import { actorId, type Actor } from "#core/auth/actor";
import * as Billing from "#core/billing/index";
import { TransactionConditionFailed } from "#core/billing/index";
import * as PhoneNumberFees from "#core/billing/number-fees";
import { config } from "#core/config";
import * as Audit from "#core/audit/index";
import { NumberRouteEntity, PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { where } from "#core/db/expression";
import { transact, Transaction } from "#core/db/transact";
import { CarrierUnavailableError, ConflictError, NotFoundError, UnprocessableError } from "#core/errors";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { toPhoneNumber, type NumberRoute, type PhoneNumber } from "#core/messaging/phone-numbers";
import type { AvailableNumbersQuery } from "#core/messaging/phone-number-admin";
import type { PhoneNumberRequest } from "#core/messaging/phone-number-request";
import { organizationProvider } from "#core/messaging/provider-choice";
import * as MessagingEvents from "#core/messaging/timeline";
import { providerByName } from "#core/providers/index";
import {
  ProviderError,
  type AvailableNumber,
  type NumberWebhooks,
  type OwnedNumber,
  type ProviderPort,
} from "#core/providers/port";
import { newId, nowIso } from "#core/shared/ids";
import * as Money from "#core/shared/money";
import { parsePhone } from "#core/shared/phone";

// Apart from phone-numbers.ts, which every sender lookup and conversation reads: only adding, deleting and searching
// numbers talk to the carrier and to billing, so only their three functions bundle the carrier adapters.

/** Buying, registering, releasing and searching numbers at the carrier. */

/**
 * Adds a number; a number already routed to an organization (this or another)
 * is a 409, a wallet that cannot pay its first month (or is suspended) a 402.
 *
 * `phoneNumberId`: the id fixed by the request's Idempotency-Key. A retry after the first request died finds the
 * number it stored (route claimed, fee paid) and only finishes it at the carrier: one key buys one number.
 */
export async function create(
  actor: Actor,
  input: PhoneNumberRequest,
  options: { phoneNumberId?: string } = {},
): Promise<PhoneNumber> {
  const provider = await numberProvider(actor.organizationId);
  const earlier = options.phoneNumberId
    ? await PhoneNumberEntity.get(
        { organizationId: actor.organizationId, id: options.phoneNumberId },
        { consistent: true },
      )
    : undefined;
  if (earlier) return finishAdd(actor, provider, earlier);
  const held = input.purchase ? undefined : await carrier(() => provider.findOwnedNumber!(input.phoneNumber));
  if (!input.purchase && !held) {
    throw new UnprocessableError(
      `${input.phoneNumber} is not held by this platform's ${provider.name} account; buy it (purchase: true) or port it there first.`,
    );
  }
  const now = nowIso();
  const number: PhoneNumber = {
    id: options.phoneNumberId ?? newId(),
    phoneNumber: input.phoneNumber,
    friendlyName: input.friendlyName ?? null,
    capabilities: [...new Set(input.capabilities)],
    areaCode: parsePhone(input.phoneNumber)?.areaCode ?? null,
    lastUsedAt: null,
    createdAt: now,
    modifiedAt: null,
    registration: null,
    paused: null,
    messagesPerSecond: input.messagesPerSecond ?? null,
    assignedUserId: null,
  };
  const route: NumberRoute = {
    organizationId: actor.organizationId,
    phoneNumberId: number.id,
    phoneNumber: number.phoneNumber,
  };
  // The first month's fee (prorated) is charged with the number: refused (402) unless the wallet covers it.
  const fee = await PhoneNumberFees.firstMonth(actor.organizationId, number, actorId(actor));
  // Its carrier id is recorded once it is set up there: a number stored without one is finished by a retry.
  const atCarrier = { provider: provider.name };
  try {
    await Billing.commit(
      new Transaction()
        .put("number", PhoneNumberEntity.create({ organizationId: actor.organizationId, ...number, ...atCarrier }))
        .put(
          "number",
          NumberRouteEntity.put({ ...route }, { condition: where.any(where.new(), where.exists("releasedAt")) }),
        )
        .adopt(...fee.items),
    );
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    if (error.failed("number"))
      throw new ConflictError(`${number.phoneNumber} is already registered to an organization.`);
    throw await fee.refusal();
  }
  // The number is ours (route claimed, fee paid): only now is it bought or pointed at us at the carrier.
  try {
    await setUpAtCarrier(actor, provider, number, held);
  } catch (error) {
    await undoAdd(actor, number, fee.fee);
    throw error;
  }
  return number;
}

/**
 * Deletes a number (endpoint 12). It is no longer chosen as a sender; its route
 * is kept, marked released, so late delivery receipts still find the organization.
 */
export async function remove(actor: Actor, phoneNumberId: string): Promise<void> {
  const number = await PhoneNumbers.fromId(actor, phoneNumberId);
  await releaseAtCarrier(actor.organizationId, phoneNumberId);
  await forget(actor, number, true);
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
}

/** `GET /available-phone-numbers`: what the carrier offers now (nothing is held until bought). */
export async function available(actor: Actor, query: AvailableNumbersQuery): Promise<{ items: AvailableNumber[] }> {
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
}

/**
 * Buys the number, or points the one the account holds (`held`) at us, then records its carrier id on the stored
 * number with its `PhoneNumberAdded` event and the add's audit entry in one transaction: a number with a carrier id
 * ("done") has its event and its entry, whatever crashes when, and a retry that finds it done writes nothing.
 * Conditional on no carrier id yet: a concurrent retry that finished it first wrote all three.
 */
async function setUpAtCarrier(
  actor: Actor,
  provider: ProviderPort,
  number: PhoneNumber,
  held: OwnedNumber | undefined,
): Promise<void> {
  if (held) await carrier(() => provider.configureNumber!(held.providerNumberId, numberWebhooks(provider.name)));
  const { providerNumberId } =
    held ?? (await carrier(() => provider.buyNumber!(number.phoneNumber, numberWebhooks(provider.name))));
  const finished = new Transaction()
    .update(
      "number",
      PhoneNumberEntity.update(
        { organizationId: actor.organizationId, id: number.id },
        { providerNumberId },
        { condition: where.all(where.stored(), where.absent("providerNumberId")) },
      ),
    )
    .include(
      "audit",
      Audit.entry(actor, {
        action: "phoneNumber.added",
        resourceType: "PhoneNumber",
        resourceId: number.id,
        after: number,
      }),
    );
  MessagingEvents.item(
    actor.organizationId,
    {
      eventType: "PhoneNumberAdded",
      eventCategory: "PhoneNumber",
      description: `Phone number ${number.phoneNumber} added.`,
      relatedEntityType: "PhoneNumber",
      relatedEntityId: number.id,
      fromPhoneNumberId: number.id,
      fromPhoneNumber: number.phoneNumber,
      actor,
    },
    finished,
  );
  try {
    await transact(finished);
  } catch (error) {
    // Another request with the same key finished it first (and recorded the event and the entry).
    if (!(error instanceof TransactionConditionFailed && error.failed("number"))) throw error;
  }
}

/**
 * The retry of an add whose first request died after storing the number (route claimed, fee paid): a number with
 * its carrier id is done and answered; otherwise the carrier is asked whether the account holds it already (the first
 * request's purchase landed) before buying, so a retry never buys it twice. A carrier failure here answers 502 and
 * keeps the number, which the next retry with the key finishes.
 */
async function finishAdd(actor: Actor, provider: ProviderPort, item: Record<string, unknown>): Promise<PhoneNumber> {
  const number = toPhoneNumber(item);
  if (item.providerNumberId) return number;
  const held = await carrier(() => provider.findOwnedNumber!(number.phoneNumber));
  await setUpAtCarrier(actor, provider, number, held);
  return number;
}

/**
 * Deletes the number and marks its route released (late receipts still find the organization), with the removal's
 * audit entry when `audited` (an add undone is not); 404 when it is gone already.
 */
async function forget(actor: Actor, number: PhoneNumber, audited: boolean): Promise<void> {
  const phoneNumberId = number.id;
  const tx = new Transaction()
    .delete(
      "number",
      PhoneNumberEntity.remove(
        { organizationId: actor.organizationId, id: phoneNumberId },
        { condition: where.stored() },
      ),
    )
    .update(
      "route",
      NumberRouteEntity.update(
        { phoneNumber: number.phoneNumber },
        { releasedAt: nowIso() },
        {
          condition: where.all(
            where.equals("organizationId", actor.organizationId),
            where.equals("phoneNumberId", phoneNumberId),
          ),
        },
      ),
    );
  if (audited)
    tx.include(
      "audit",
      Audit.entry(actor, {
        action: "phoneNumber.removed",
        resourceType: "PhoneNumber",
        resourceId: phoneNumberId,
        before: number,
      }),
    );
  try {
    await transact(tx);
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
  const Item = await PhoneNumberEntity.get({ organizationId, id: phoneNumberId });
  const providerNumberId = Item?.providerNumberId as string | undefined;
  const provider = Item?.provider ? providerByName(String(Item.provider)) : undefined;
  if (!providerNumberId || !provider?.releaseNumber) return;
  await carrier(() => provider.releaseNumber!(providerNumberId));
}

/** A purchase or registration the carrier refused after the number was stored: forgotten again, its fee refunded. */
async function undoAdd(actor: Actor, number: PhoneNumber, fee: string): Promise<void> {
  await forget(actor, number, false);
  if (Money.compare(fee, "0") > 0)
    await Billing.adjust(actor.organizationId, fee, `Refund: ${number.phoneNumber} could not be set up at the carrier`);
}

/** The carrier that buys and holds the organization's numbers (its provider); it must support number operations. */
async function numberProvider(
  organizationId: string,
): Promise<
  ProviderPort &
    Required<
      Pick<
        ProviderPort,
        "searchAvailableNumbers" | "buyNumber" | "findOwnedNumber" | "configureNumber" | "releaseNumber"
      >
    >
> {
  const provider = await carrier(() => organizationProvider(organizationId));
  if (
    !provider.searchAvailableNumbers ||
    !provider.buyNumber ||
    !provider.findOwnedNumber ||
    !provider.configureNumber ||
    !provider.releaseNumber
  ) {
    throw new CarrierUnavailableError(`The ${provider.name} provider cannot manage numbers.`);
  }
  return provider as Awaited<ReturnType<typeof numberProvider>>;
}

/** Where the carrier sends a number's inbound messages and calls. */
function numberWebhooks(provider: string): NumberWebhooks {
  const base = `${config.publicBaseUrl.replace(/\/$/, "")}/webhooks/${provider}`;
  return {
    smsUrl: `${base}/messages/inbound`,
    voiceUrl: `${base}/calls/inbound`,
    voiceStatusCallbackUrl: `${base}/calls/status`,
  };
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
    if (
      error.kind === "permanent" &&
      error.details.httpStatus !== undefined &&
      error.details.httpStatus < 500 &&
      error.details.httpStatus !== 401 &&
      error.details.httpStatus !== 403
    ) {
      throw new ConflictError(`The carrier refused the number: ${error.message} (${error.code}).`);
    }
    throw new CarrierUnavailableError(
      `The carrier could not complete the request: ${error.message} (${error.code}). Nothing was changed; try again.`,
    );
  }
}
