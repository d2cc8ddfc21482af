import { dueWorkShardOf, dueWorkShards } from "#core/db/due";
import { conditionally, table } from "#core/db/items";
import { keys } from "#core/db/keys";
import type { MessageStatus } from "#core/shared/status";
import type { Message } from "#core/messaging/model";
import type { Slot } from "#core/messaging/pacing";

/**
 * Storage of messages: every change is one conditional UpdateItem that names
 * the statuses it may start from, so concurrent consumers, webhooks and the
 * sweeper can never move a message backwards or out of a final status.
 *
 * Each waiting message carries exactly one entry in the due index (gsi3), saying
 * when it must be looked at again and why; a final message carries none.
 */

/** Why the sweeper looks at a message: release a scheduled send, re-dispatch a stuck one, or expire a receipt wait. */
export type DueKind = "Release" | "Dispatch" | "ReceiptTimeout";
export type Due = { at: string; kind: DueKind } | null;

export const dueShards = dueWorkShards;

/** The gsi3 attributes of a message's due entry. */
export function dueAttributes(organizationId: string, messageId: string, due: NonNullable<Due>) {
  return { ...keys.dueMessage(dueWorkShardOf(messageId), due.at, organizationId, messageId), dueKind: due.kind };
}

export async function readMessage(organizationId: string, messageId: string): Promise<Message | undefined> {
  return (await readMessageToSend(organizationId, messageId))?.message;
}

/**
 * A message with the send slot it holds while it waits in the queue for it (`heldSlot`, set by pacing's
 * `waitInQueue`), for the consumer: a copy of the message published without the slot (the sweep's republish, after
 * a backlog made the delayed copy late) goes in that slot instead of reserving another one. Each extra reservation
 * would be a slot the number never uses, pushing every later send of the number back by one interval.
 */
export async function readMessageToSend(
  organizationId: string,
  messageId: string,
): Promise<{ message: Message; heldSlot?: Slot } | undefined> {
  const { Item } = await table.get({ Key: keys.message(organizationId, messageId), ConsistentRead: true });
  if (!Item) return undefined;
  return { message: toMessage(Item), ...(Item.heldSlot ? { heldSlot: Item.heldSlot as Slot } : {}) };
}

/** The provider ids of a message's attempts refused for throttling (none when it had none). */
export async function refusedAttemptsOf(organizationId: string, messageId: string): Promise<string[]> {
  const { Item } = await table.get({
    Key: keys.message(organizationId, messageId),
    ConsistentRead: true,
    ProjectionExpression: "refusedAttempts",
  });
  return Array.isArray(Item?.refusedAttempts) ? (Item.refusedAttempts as string[]) : [];
}

/**
 * The condition that a change applies to the attempt `providerMessageId` names: the message's current one (or, before
 * its id is stored, any attempt but one refused for throttling). A carrier's callback names the attempt it is about.
 */
export function currentAttempt(providerMessageId: string): { condition: string; values: Record<string, unknown> } {
  return {
    condition:
      "(attribute_not_exists(providerMessageId) OR providerMessageId = :attempt) AND NOT contains(refusedAttempts, :attempt)",
    values: { ":attempt": providerMessageId },
  };
}

export interface MessageChange {
  /** The statuses the message may be in for the change to apply. */
  from: readonly MessageStatus[];
  /**
   * Stored but never shown: `sweepAttempts` (how many times the sweep republished it), `waitingBehind` (the id of
   * the conversation's earlier message a Queued one waits for, core/messaging/conversation-order.ts) and `heldSlot`
   * (the send slot a Queued one waits for, core/messaging/pacing.ts).
   */
  set: Partial<Record<keyof Message | InternalField, unknown>>;
  remove?: (keyof Message | InternalField)[];
  /** The due entry after the change (undefined: leave it as it is). */
  due?: Due;
  /** Extra condition, e.g. `retryCount = :rc` (values in `values`). */
  condition?: string;
  values?: Record<string, unknown>;
}

/** Applies a change if the message is still in one of `from`; undefined when it was not. */
export async function changeMessage(
  organizationId: string,
  messageId: string,
  change: MessageChange,
): Promise<Message | undefined> {
  const result = await conditionally(
    table.update({ ...messageUpdate(organizationId, messageId, change), ReturnValues: "ALL_NEW" }),
  );
  return result ? toMessage(result.Attributes!) : undefined;
}

/** The conditional UpdateItem of a change, to send alone (changeMessage) or inside a transaction with billing writes. */
export function messageUpdate(organizationId: string, messageId: string, change: MessageChange) {
  const names: Record<string, string> = { "#status": "status" };
  const values: Record<string, unknown> = { ...change.values };
  const sets: string[] = [];
  const removes: string[] = (change.remove ?? []).map((field) => {
    names[`#${field}`] = field;
    return `#${field}`;
  });
  const set = { ...change.set, modifiedAt: new Date().toISOString() } as Record<string, unknown>;
  if (change.due) Object.assign(set, dueAttributes(organizationId, messageId, change.due));
  if (change.due === null) {
    for (const field of ["gsi3pk", "gsi3sk", "dueKind"]) {
      names[`#${field}`] = field;
      removes.push(`#${field}`);
    }
  }
  for (const [field, value] of Object.entries(set)) {
    if (value === undefined) continue;
    names[`#${field}`] = field;
    values[`:${field}`] = value;
    sets.push(`#${field} = :${field}`);
  }
  const fromValues = change.from.map((status, index) => {
    values[`:from${index}`] = status;
    return `:from${index}`;
  });
  const condition = `attribute_exists(pk) AND #status IN (${fromValues.join(", ")})${change.condition ? ` AND ${change.condition}` : ""}`;
  return {
    Key: keys.message(organizationId, messageId),
    UpdateExpression: `SET ${sets.join(", ")}${removes.length ? ` REMOVE ${removes.join(", ")}` : ""}`,
    ConditionExpression: condition,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/**
 * `refusedAttempts`: the provider ids of the message's earlier attempts the carrier refused for throttling
 * (`Outbound.throttledAtCarrier`): a late callback of one never applies to a later attempt, and the hand-off
 * recovery never adopts one as the later attempt's.
 */
type InternalField = "sweepAttempts" | "waitingBehind" | "heldSlot" | "refusedAttempts";

const internal = new Set([
  "sweepAttempts",
  "waitingBehind",
  "heldSlot",
  "refusedAttempts",
  "pk",
  "sk",
  "entity",
  "gsi1pk",
  "gsi1sk",
  "gsi2pk",
  "gsi2sk",
  "gsi3pk",
  "gsi3sk",
  "dueKind",
  "organizationId",
]);

export function toMessage(item: Record<string, unknown>): Message {
  // Messages stored before they carried their owner are nobody's.
  return {
    assignedUserId: null,
    ...Object.fromEntries(Object.entries(item).filter(([key]) => !internal.has(key))),
  } as unknown as Message;
}
