import { ulid } from "ulid";
import { conditionally } from "#core/db/items";
import { recordEvent, type EventRecordInput } from "#core/events/index";

type WalletImage = Record<string, unknown>;

/**
 * Wallet changes worth an event record, read from the table stream's old and new images (so no write path of the
 * wallet needs to know): `WalletSuspended` when a suspension starts, `WalletLowBalance` when the available balance
 * falls below the low-balance threshold. Each event's id is derived from the wallet change, so reading the same
 * stream record again records nothing more.
 */
/** Event types billing records: wallet changes the stream observes, and holds the sweeper recovers. */
export type BillingEventType = "WalletSuspended" | "WalletLowBalance" | "HoldRecovered";

export async function recordWalletEvents(before: WalletImage, after: WalletImage): Promise<void> {
  const organizationId = typeof after.organizationId === "string" ? after.organizationId : undefined;
  const at = String(after.modifiedAt ?? "");
  if (!organizationId || !at) return;
  const events: (EventRecordInput & { eventType: BillingEventType })[] = [];
  if (!before.suspendedAt && after.suspendedAt) {
    events.push({
      eventType: "WalletSuspended",
      eventCategory: "Billing",
      timelineCategory: "Billing",
      description: `The wallet was suspended: ${String(after.suspendedReason ?? "no reason given")}. New messages and calls are refused.`,
      status: "Suspended",
      statusReason: String(after.suspendedReason ?? ""),
      relatedEntityType: "Wallet",
    });
  }
  const low = (image: WalletImage) => Number(image.availableUnits) < Number(image.lowBalanceThresholdUnits);
  if (!low(before) && low(after)) {
    events.push({
      eventType: "WalletLowBalance",
      eventCategory: "Billing",
      timelineCategory: "Billing",
      description: "The wallet's available balance fell below its low-balance threshold.",
      status: "Low",
      relatedEntityType: "Wallet",
    });
  }
  for (const event of events) {
    const seed = Buffer.from(`${organizationId}:${event.eventType}:${at}`);
    let index = 0;
    const id = ulid(Date.parse(at), () => (seed[index++ % seed.length]! % 32) / 32);
    await conditionally(
      recordEvent(organizationId, {
        ...event,
        id,
        createdAt: at,
        relatedEntityId: organizationId,
        createdBy: "system",
        actorDisplayName: "System",
      }),
    );
  }
}
