import { type Call } from "#core/calls/model";
import { find as findCall } from "#core/calls/queries";
import * as Messages from "#core/messaging/messages";
import * as Billing from "#core/billing/index";
import { HOLD_CHECK_AFTER_MS, holdShards, TransactionConditionFailed, type BillingOutcome } from "#core/billing/index";
import { billFinalCall } from "#core/calls/lifecycle";
import { conditionally, table } from "#core/db/items";
import { dueEntries } from "#core/db/due";
import { ReservationEntity } from "#core/db/entities/billing";
import { where } from "#core/db/expression";
import { recordEvent } from "#core/events/index";
import * as MessageLifecycle from "#core/messaging/lifecycle";
import { callLifecycle, messageLifecycle } from "#core/shared/status";

export interface HoldSweepResult {
  /** Holds whose owner was final: settled as its final status says (charged or released). */
  settled: number;
  /** Holds whose owner no longer exists: released. */
  released: number;
  /** Holds whose owner is still under way: looked at again later. */
  kept: number;
  /** Holds that could not be handled this time (logged; the next sweep tries again). */
  errors: number;
}

type Owner =
  { kind: "final"; settle: () => Promise<BillingOutcome | undefined> } | { kind: "gone" } | { kind: "waiting" };

/**
 * The hold sweeper (defence in depth; EventBridge every 15 minutes). Every
 * open hold carries an entry in the Reservation's `holdCheck` index (`DUEHOLDS#<shard>`), due
 * HOLD_CHECK_AFTER_MS after it was taken and removed in the write that settles
 * or releases it. For each due hold it reads the owner (the message or call
 * whose id keys it):
 * - owner final (a message Delivered/Undelivered/Unknown/Failed/Blocked/Canceled,
 *   a call Completed/Busy/NoAnswer/Failed/Canceled): settled as that status says,
 *   exactly as the status write would have (charge or release), with a
 *   `HoldRecovered` event;
 * - owner gone: released, with the event;
 * - owner still under way: looked at again HOLD_CHECK_AFTER_MS later.
 * Status writes settle in the same transaction, so this finds nothing unless
 * something went wrong (an older write, a bug); it is the net under them.
 */
export async function sweepHolds(options: { now?: Date; organizationId?: string } = {}): Promise<HoldSweepResult> {
  const now = (options.now ?? new Date()).getTime();
  const result: HoldSweepResult = { settled: 0, released: 0, kept: 0, errors: 0 };
  const partitions = holdShards.map((shard) => ReservationEntity.partitionKey("holdCheck", { shard }));
  for await (const { item, seen, organizationId, id } of dueEntries(
    partitions,
    new Date(now).toISOString(),
    options.organizationId,
  )) {
    try {
      const outcome = await sweepHold(organizationId, id, String(item.relatedEntityType), seen, now);
      result[outcome]++;
    } catch (error) {
      result.errors++;
      console.error(
        JSON.stringify({
          level: "error",
          sweep: "holds",
          organizationId,
          reservationId: id,
          error: (error as Error).message,
        }),
      );
    }
  }
  return result;
}

async function sweepHold(
  organizationId: string,
  reservationId: string,
  ownerType: string,
  seen: string,
  now: number,
): Promise<keyof Omit<HoldSweepResult, "errors">> {
  const owner = await ownerOf(organizationId, reservationId, ownerType);
  if (owner.kind === "waiting") {
    // Look again later; conditional on the entry read, so overlapping sweeps move it once.
    await conditionally(
      table.update(
        ReservationEntity.update(
          { organizationId, reservationId },
          {},
          {
            condition: where.all(ReservationEntity.indexedAt("holdCheck", seen), where.equals("state", "Reserved")),
            enter: { holdCheck: { dueAt: new Date(now + HOLD_CHECK_AFTER_MS).toISOString() } },
          },
        ),
      ),
    );
    return "kept";
  }
  const outcome = owner.kind === "final" ? await owner.settle() : await Billing.release(organizationId, reservationId);
  if (outcome) {
    await recordEvent(organizationId, {
      eventType: "HoldRecovered",
      eventCategory: "Billing",
      description:
        owner.kind === "final"
          ? `The hold of ${ownerType.toLowerCase()} ${reservationId} was still open after it ended; settled (${outcome.billingStatus}, ${outcome.billableAmount}).`
          : `The hold of ${ownerType.toLowerCase()} ${reservationId} had no ${ownerType.toLowerCase()} any more; released.`,
      relatedEntityType: ownerType,
      relatedEntityId: reservationId,
      billingStatus: outcome.billingStatus,
      billableAmount: outcome.billableAmount,
    });
  }
  return owner.kind === "final" ? "settled" : "released";
}

async function ownerOf(organizationId: string, id: string, ownerType: string): Promise<Owner> {
  if (ownerType === "Message") {
    const message = await Messages.find(organizationId, id);
    if (!message) return { kind: "gone" };
    // Unknown is not final, but it is where a message's hold is settled (charged).
    if (!messageLifecycle.isFinal(message.status) && message.status !== "Unknown") return { kind: "waiting" };
    return { kind: "final", settle: () => MessageLifecycle.settleHoldOfEnded(organizationId, message) };
  }
  if (ownerType === "Call") {
    const call = await findCall(organizationId, id);
    if (!call) return { kind: "gone" };
    if (!callLifecycle.isFinal(call.status)) return { kind: "waiting" };
    return { kind: "final", settle: () => settleFinalCall(organizationId, call) };
  }
  return { kind: "waiting" };
}

/** Commits the billing a final call's status write would have made (its own fields are already final). */
async function settleFinalCall(organizationId: string, call: Call): Promise<BillingOutcome | undefined> {
  const { fields, items } = await billFinalCall(organizationId, call);
  if (items.length === 0) return undefined;
  try {
    await Billing.commit(items);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failed("reservation")) return undefined; // settled meanwhile
    throw error;
  }
  return {
    billingStatus: fields.billingStatus ?? "Charged",
    billableAmount: String(fields.billableAmount ?? "0.0000"),
  } as BillingOutcome;
}
