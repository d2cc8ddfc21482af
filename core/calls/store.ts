import { dueWorkShards } from "#core/db/due";
import { CallByPhoneEntity, CallEntity, ProviderCallEntity } from "#core/db/entities/calls";
import { where } from "#core/db/expression";
import { withoutKeys } from "#core/db/indexes";
import { claimKey } from "#core/db/items";
import * as Billing from "#core/billing/index";
import { TransactionConditionFailed, type TransactItem } from "#core/billing/index";
import type { Call } from "#core/calls/model";
import type { AfterCommit } from "#core/db/transact";
import { callLifecycle } from "#core/shared/status";

/**
 * Storage of calls. A call is written as three items in one transaction: the
 * call itself and a copy under each of its two numbers (endpoint 14 lists calls
 * from or to a number). Every write names the version it read (optimistic
 * concurrency), so concurrent callbacks never lose an update; billing items
 * (reservation, settlement) ride in the same transaction.
 */

/**
 * The call's entry in the Call entity's `due` index, as its index key attributes (`dueEntry`, or as read from the
 * call): present while it holds money and is not final.
 */
export type DueKeys = Record<string, unknown>;

type Stored = Call & { version: number; placementStartedAt?: string; deadlineAt?: string } & Record<string, unknown>;

/** What the call item holds beside the call (its keys and index entries are left out too). */
const internal = new Set(["entity", "version", "organizationId", "placementStartedAt", "deadlineAt"]);

export function toCall(item: Record<string, unknown>): Call {
  return {
    forwardedTo: null,
    connectTo: null,
    connectAnsweredAt: null,
    whisper: null,
    ringSeconds: null,
    assignedUserId: null,
    ...Object.fromEntries(Object.entries(withoutKeys(item)).filter(([key]) => !internal.has(key))),
  } as unknown as Call;
}

export async function readCall(organizationId: string, callId: string): Promise<Stored | undefined> {
  return (await CallEntity.get({ organizationId, id: callId }, { consistent: true })) as Stored | undefined;
}

export const dueShards = dueWorkShards;

/** The due-index entry of a call overdue at `dueAt` (ISO). */
export function dueEntry(organizationId: string, callId: string, dueAt: string): DueKeys {
  return CallEntity.entryIn("due", { organizationId, id: callId, dueAt });
}

/** Where a call read, or a due entry, stands in the due index (what a sweep's claim compares with the entry it read). */
export const duePosition = (item: Record<string, unknown>): string => CallEntity.indexPosition("due", item);

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
  const dueKeys = due && !callLifecycle.isFinal(call.status) ? due : {};
  return [
    {
      Put: CallEntity.put(body, {
        condition: readVersion === undefined ? where.new() : where.equals("version", readVersion),
        extra: dueKeys,
      }),
    },
    ...numbers.map((e164): TransactItem => ({
      Put: CallByPhoneEntity.putAt({ organizationId, e164, callId: call.id }, body),
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
      const due = next.due ?? CallEntity.entryOf("due", current);
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
  return claimKey(ProviderCallEntity.key({ organizationId, provider, providerCallId }), {
    entity: ProviderCallEntity.name,
    callId,
  });
}

/** Our call id of a provider call id, when a placement or an inbound call claimed it. */
export async function callIdOfProvider(
  organizationId: string,
  provider: string,
  providerCallId: string,
): Promise<string | undefined> {
  const item = await ProviderCallEntity.get({ organizationId, provider, providerCallId }, { consistent: true });
  return item?.callId as string | undefined;
}
