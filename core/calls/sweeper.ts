import { applyStatus, nextCheckIn } from "#core/calls/lifecycle";
import type { StatusChange } from "#core/calls/model";
import { claimProviderCall, dueEntry, duePosition, dueShards, readCall, toCall, updateCall } from "#core/calls/store";
import { CallPlace } from "#core/calls/queue";
import { publish } from "#core/queue/messages";
import { dueEntries } from "#core/db/due";
import { CallEntity } from "#core/db/entities/calls";
import { callLifecycle, inboundCallStatus } from "#core/shared/status";
import { providerByName } from "#core/providers/index";
import { ProviderError } from "#core/providers/port";
import { nowIso } from "#core/shared/ids";
import { queues } from "#stacks/definitions";

export interface CallSweepResult {
  /** Overdue calls ended with the final status the provider reported when asked. */
  reported: number;
  /** Overdue calls the provider gave no final status for: ended Failed, their hold released. */
  expired: number;
  /** Calls looked at before their deadline and left going (a lost placement published again), due again at their next check-in. */
  checked: number;
  /** Items that could not be handled this time (logged; the next sweep tries again). */
  errors: number;
}

/**
 * The call sweep (EventBridge, every 5 minutes): reads the due index of calls
 * (the Call entity's `due` index, `DUECALLS#<shard>`) up to now. A call is there while it holds money
 * and is not final, overdue at its hold time + ring timeout + `maxCallMinutes`
 * + CALL_SWEEP_GRACE_MINUTES, when its final callbacks never came. For each:
 * - ask the provider for the call's status (when the adapter can); a final
 *   status is applied as its callback would be (ranked lifecycle; billing
 *   settles or releases the hold in the same write);
 * - otherwise the call ends `Failed` ("No final status from the provider
 *   within N minutes.") and its hold is released: nothing is charged.
 * Each change is conditional on the call's due entry being the one read, in
 * the write that finalizes it (and drops the entry), so overlapping sweeps act
 * once. One bad item is logged and skipped. `organizationId` restricts the
 * sweep to one organization (tests that move the clock).
 */
export async function sweepDueCalls(options: { now?: Date; organizationId?: string } = {}): Promise<CallSweepResult> {
  const now = options.now ?? new Date();
  const result: CallSweepResult = { reported: 0, expired: 0, checked: 0, errors: 0 };
  const partitions = dueShards.map((shard) => CallEntity.partitionKey("due", { shard }));
  for await (const { seen, dueAt, organizationId, id: callId } of dueEntries(
    partitions,
    now.toISOString(),
    options.organizationId,
  )) {
    try {
      const outcome = await sweepCall(organizationId, callId, seen, Date.parse(dueAt), now.getTime());
      if (outcome) result[outcome]++;
    } catch (error) {
      result.errors++;
      console.error(
        JSON.stringify({ level: "error", sweep: "dueCalls", organizationId, callId, error: (error as Error).message }),
      );
    }
  }
  return result;
}

/**
 * How long a consumer may hold a call claimed for placement before the placement counts as cut short: four times the
 * outbound-calls consumer's function timeout, after which that consumer is surely gone (Lambda ends it).
 */
export const PLACEMENT_LEASE_MS = 4 * queues.outboundCalls.consumerTimeoutSeconds * 1000;

/**
 * A placement cut short (claimed, no provider id stored: the consumer died during its request, or it timed out): the
 * provider the claim named is asked whether it placed the call, by our id (its idempotency key). It did: its id is
 * recorded (the next check-in asks for its status). It did not: the claim is dropped and the placement queued again
 * (the consumer claims it once, with the same idempotency key). A provider that cannot say leaves the call to its
 * deadline, as before. Conditional on the due entry and the claim read.
 */
async function recoverPlacement(
  organizationId: string,
  call: NonNullable<Awaited<ReturnType<typeof readCall>>>,
  claim: (current: Record<string, unknown>) => boolean,
  now: number,
): Promise<void> {
  const provider = call.provider ? providerByName(call.provider) : undefined;
  if (!provider?.findPlacedCall) return;
  let placed;
  try {
    placed = await provider.findPlacedCall({
      idempotencyKey: call.id,
      from: call.fromPhoneNumber,
      to: call.connectTo ?? call.toPhoneNumber,
      since: call.placementStartedAt!,
    });
  } catch (error) {
    if (error instanceof ProviderError) return;
    throw error;
  }
  if (placed) {
    await claimProviderCall(organizationId, provider.name, placed.providerCallId, call.id);
    await updateCall(organizationId, call.id, async (current) =>
      current.providerId
        ? undefined
        : {
            call: {
              ...toCall(current),
              providerId: placed.providerCallId,
              provider: provider.name,
              modifiedAt: nowIso(),
            },
          },
    );
    return;
  }
  // A carrier whose search lags may not list it yet: asked again at the next check-in, never placed again too early.
  if (now < Date.parse(call.placementStartedAt!) + (provider.handOffSearchSettleMs ?? 0)) return;
  const released = await updateCall(organizationId, call.id, async (current) =>
    claim(current) &&
    current.status === "Queued" &&
    !current.providerId &&
    current.placementStartedAt === call.placementStartedAt
      ? { call: toCall(current), extra: { placementStartedAt: undefined } }
      : undefined,
  );
  if (released) await publish(CallPlace, organizationId, { callId: call.id });
}

async function sweepCall(
  organizationId: string,
  callId: string,
  seen: string,
  dueAt: number,
  now: number,
): Promise<"reported" | "expired" | "checked" | undefined> {
  const call = await readCall(organizationId, callId);
  if (!call || duePosition(call) !== seen || callLifecycle.isFinal(call.status)) return undefined;
  const claim = (current: Record<string, unknown>) => duePosition(current) === seen;
  const provider = call.provider ? providerByName(call.provider) : undefined;
  const report =
    call.providerId && provider?.fetchCallStatus ? await provider.fetchCallStatus(call.providerId) : undefined;
  // An inbound call's own leg never answers it (only the Dial result does), as for its callbacks.
  const status = report && (call.direction === "Inbound" ? inboundCallStatus(report.status) : report.status);
  if (report && status && callLifecycle.isFinal(status)) {
    const change: StatusChange = {
      status,
      ...(call.direction === "Outbound" ? { leg: "business" as const } : {}),
      providerStatus: report.providerStatus,
      providerCallId: report.providerCallId,
      ...(report.durationSeconds !== undefined ? { durationSeconds: report.durationSeconds } : {}),
    };
    return (await applyStatus(organizationId, callId, call.provider, change, claim)) ? "reported" : undefined;
  }
  // A check-in before the deadline: the call goes on, its next check-in is set, and a placement whose queue message
  // was lost is published again (dispatch claims it once). The check-in is claimed first: of overlapping sweeps one
  // acts, and the placement it publishes may change the call at once without making the claim fail.
  if (call.deadlineAt && now < Date.parse(call.deadlineAt)) {
    const next = dueEntry(organizationId, callId, nextCheckIn(now, call.deadlineAt));
    const moved = await updateCall(organizationId, callId, async (current) =>
      claim(current) ? { call: toCall(current), due: next } : undefined,
    );
    if (!moved) return undefined;
    if (call.status === "Queued" && !call.providerId) {
      if (!call.placementStartedAt) await publish(CallPlace, organizationId, { callId });
      else if (now >= Date.parse(call.placementStartedAt) + PLACEMENT_LEASE_MS)
        await recoverPlacement(organizationId, call, (current) => duePosition(current) === duePosition(next), now);
    }
    return "checked";
  }
  const minutes = Math.round((dueAt - Date.parse(call.createdAt)) / 60_000);
  const ended = await applyStatus(
    organizationId,
    callId,
    call.provider,
    {
      status: "Failed",
      providerStatus: report?.providerStatus ?? "unknown",
      statusReason: `No final status from the provider within ${minutes} minutes.`,
    },
    claim,
  );
  return ended ? "expired" : undefined;
}
