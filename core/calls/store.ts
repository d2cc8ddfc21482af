import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { Billing, TransactionConditionFailed, type TransactItem } from "#core/billing/index";
import type { Call } from "#core/calls/model";
import { db, tableName } from "#core/db/client";
import { entities, keys } from "#core/db/keys";

/**
 * Storage of calls. A call is written as three items in one transaction: the
 * call itself and a copy under each of its two numbers (endpoint 14 lists calls
 * from or to a number). Every write names the version it read (optimistic
 * concurrency), so concurrent callbacks never lose an update; billing items
 * (reservation, settlement) ride in the same transaction.
 */

type Stored = Call & { version: number };

const internal = new Set(["pk", "sk", "entity", "version", "organizationId", "placementStartedAt"]);

export function toCall(item: Record<string, unknown>): Call {
  return { forwardedTo: null, ...Object.fromEntries(Object.entries(item).filter(([key]) => !internal.has(key))) } as unknown as Call;
}

export async function readCall(organizationId: string, callId: string): Promise<(Stored & { placementStartedAt?: string }) | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.call(organizationId, callId), ConsistentRead: true }));
  return Item as (Stored & { placementStartedAt?: string }) | undefined;
}

/** The call's three items, conditional on the version read (undefined: the call must not exist yet). */
export function callWrites(organizationId: string, call: Call, readVersion: number | undefined, extra: Record<string, unknown> = {}): TransactItem[] {
  const version = (readVersion ?? 0) + 1;
  const body = { ...call, organizationId, version, ...extra };
  const numbers = [...new Set([call.fromPhoneNumber, call.toPhoneNumber])];
  return [
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.call(organizationId, call.id), entity: entities.call, ...body },
        ConditionExpression: readVersion === undefined ? "attribute_not_exists(pk)" : "version = :version",
        ...(readVersion === undefined ? {} : { ExpressionAttributeValues: { ":version": readVersion } }),
      },
    },
    ...numbers.map(
      (e164): TransactItem => ({
        Put: { TableName: tableName(), Item: { ...keys.callByPhone(organizationId, e164, call.id), entity: entities.callByPhone, ...body } },
      }),
    ),
  ];
}

/**
 * Reads, changes and writes a call until the write wins (another callback may
 * have moved it meanwhile). `change` answers the next call and the billing
 * items to commit with it, or undefined to leave the call as it is.
 */
export async function updateCall(
  organizationId: string,
  callId: string,
  change: (current: Stored & { placementStartedAt?: string }) => Promise<{ call: Call; items?: TransactItem[]; extra?: Record<string, unknown> } | undefined>,
): Promise<{ before: Call; after: Call } | undefined> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await readCall(organizationId, callId);
    if (!current) return undefined;
    const next = await change(current);
    if (!next) return undefined;
    const extra = { ...(current.placementStartedAt ? { placementStartedAt: current.placementStartedAt } : {}), ...next.extra };
    try {
      await Billing.commit([...callWrites(organizationId, next.call, current.version, extra), ...(next.items ?? [])]);
      return { before: toCall(current), after: next.call };
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
    }
  }
  throw new Error(`Call ${callId} kept changing; giving up this update.`);
}
