import { dueWorkShardOf, dueWorkShards } from "#core/db/due";
import { table, claimKey } from "#core/db/items";
import { Billing, TransactionConditionFailed, type TransactItem } from "#core/billing/index";
import type { Call } from "#core/calls/model";
import type { AfterCommit } from "#core/db/transact";
import { entities, keys } from "#core/db/keys";
import { callLifecycle } from "#core/shared/status";

/**
 * Storage of calls. A call is written as three items in one transaction: the
 * call itself and a copy under each of its two numbers (endpoint 14 lists calls
 * from or to a number). Every write names the version it read (optimistic
 * concurrency), so concurrent callbacks never lose an update; billing items
 * (reservation, settlement) ride in the same transaction.
 */

/** The call's entry in the due index (gsi3, `keys.dueCall`): present while it holds money and is not final. */
export type DueKeys = { gsi3pk: string; gsi3sk: string };

type Stored = Call & { version: number; placementStartedAt?: string; deadlineAt?: string } & Partial<DueKeys>;

const internal = new Set([
  "pk",
  "sk",
  "entity",
  "version",
  "organizationId",
  "placementStartedAt",
  "deadlineAt",
  "gsi3pk",
  "gsi3sk",
]);

export function toCall(item: Record<string, unknown>): Call {
  return {
    forwardedTo: null,
    connectTo: null,
    connectAnsweredAt: null,
    whisper: null,
    ringSeconds: null,
    assignedUserId: null,
    ...Object.fromEntries(Object.entries(item).filter(([key]) => !internal.has(key))),
  } as unknown as Call;
}

export async function readCall(organizationId: string, callId: string): Promise<Stored | undefined> {
  const { Item } = await table.get({ Key: keys.call(organizationId, callId), ConsistentRead: true });
  return Item as Stored | undefined;
}

export const dueShards = dueWorkShards;

/** The due-index entry of a call overdue at `dueAt` (ISO). */
export function dueEntry(organizationId: string, callId: string, dueAt: string): DueKeys {
  return keys.dueCall(dueWorkShardOf(callId), dueAt, organizationId, callId);
}

/**
 * The call's three items, conditional on the version read (undefined: the call
 * must not exist yet). `due` goes on the call item only, and never on a final call.
 */
export function callWrites(
  organizationId: string,
  call: Call,
  readVersion: number | undefined,
  extra: Record<string, unknown> = {},
  due?: DueKeys,
): TransactItem[] {
  const version = (readVersion ?? 0) + 1;
  const body = { ...call, organizationId, version, ...extra };
  const numbers = [...new Set([call.fromPhoneNumber, call.toPhoneNumber])];
  const dueKeys = due && !callLifecycle.isFinal(call.status) ? { gsi3pk: due.gsi3pk, gsi3sk: due.gsi3sk } : {};
  return [
    {
      Put: {
        Item: { ...keys.call(organizationId, call.id), entity: entities.call, ...body, ...dueKeys },
        ConditionExpression: readVersion === undefined ? "attribute_not_exists(pk)" : "version = :version",
        ...(readVersion === undefined ? {} : { ExpressionAttributeValues: { ":version": readVersion } }),
      },
    },
    ...numbers.map((e164): TransactItem => ({
      Put: { Item: { ...keys.callByPhone(organizationId, e164, call.id), entity: entities.callByPhone, ...body } },
    })),
  ];
}

/**
 * Reads, changes and writes a call until the write wins (another callback may
 * have moved it meanwhile). `change` answers the next call and the billing
 * items to commit with it, or undefined to leave the call as it is. The call's
 * due entry is kept until the write that makes it final.
 */
export async function updateCall(
  organizationId: string,
  callId: string,
  change: (current: Stored) => Promise<
    | {
        call: Call;
        items?: TransactItem[];
        extra?: Record<string, unknown>;
        afterCommit?: AfterCommit[];
        due?: DueKeys;
      }
    | undefined
  >,
): Promise<{ before: Call; after: Call } | undefined> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await readCall(organizationId, callId);
    if (!current) return undefined;
    const next = await change(current);
    if (!next) return undefined;
    const extra = {
      ...(current.placementStartedAt ? { placementStartedAt: current.placementStartedAt } : {}),
      ...(current.deadlineAt ? { deadlineAt: current.deadlineAt } : {}),
      ...next.extra,
    };
    try {
      const due =
        next.due ?? (current.gsi3pk && current.gsi3sk ? { gsi3pk: current.gsi3pk, gsi3sk: current.gsi3sk } : undefined);
      await Billing.commit([
        ...callWrites(organizationId, next.call, current.version, extra, due),
        ...(next.items ?? []),
      ]);
      for (const effect of next.afterCommit ?? []) await effect();
      return { before: toCall(current), after: next.call };
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
    }
  }
  throw new Error(`Call ${callId} kept changing; giving up this update.`);
}

/** Claims provider call id → call id; false when it already points at a call. */
export async function claimProviderCall(
  organizationId: string,
  provider: string,
  providerCallId: string,
  callId: string,
): Promise<boolean> {
  return claimKey(keys.providerCall(organizationId, provider, providerCallId), {
    entity: entities.providerCall,
    callId,
  });
}

/** Our call id of a provider call id, when a placement or an inbound call claimed it. */
export async function callIdOfProvider(
  organizationId: string,
  provider: string,
  providerCallId: string,
): Promise<string | undefined> {
  const { Item } = await table.get({
    Key: keys.providerCall(organizationId, provider, providerCallId),
    ConsistentRead: true,
  });
  return Item?.callId as string | undefined;
}
