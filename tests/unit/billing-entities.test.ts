import { describe, expect, it } from "vitest";
import { closeReservation, holdCheckEntry } from "#core/billing/reservations";
import { ledgerPut, ledgerEntry } from "#core/billing/ledger";
import { walletChange } from "#core/billing/wallet-store";
import { ledgerListShards, PaymentReviewEntity, ReservationEntity, WalletEntity } from "#core/db/entities/billing";
import { shardOf } from "#core/db/entity";
import { TenDlcCampaignEntity } from "#core/db/entities/carrier-registration";
import { dueWorkShardOf } from "#core/db/due";
import { computed, where } from "#core/db/expression";
import { billingKeys } from "#core/db/keys/billing";

/** An expression with its placeholders filled in, to read what it does. */
function spelled(
  expression: string,
  input: { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> },
): string {
  return expression
    .replace(/#n\d+/g, (name) => input.ExpressionAttributeNames![name] ?? name)
    .replace(/:v\d+/g, (value) => {
      const stated = input.ExpressionAttributeValues![value];
      return stated instanceof Set ? `<<${[...stated].join(",")}>>` : JSON.stringify(stated);
    });
}

const organizationId = "o1";
const reservationId = "msg_01HOLD";

describe("billing entities keep the keys the items always had (no data migration)", () => {
  it("a hold is put at its own partition, with its sweeper entry in the shard of its id", () => {
    const dueAt = Date.parse("2026-01-01T01:00:00.000Z");
    const put = ReservationEntity.putAt(
      { organizationId, reservationId },
      { reservationId, state: "Reserved", ...holdCheckEntry(organizationId, reservationId, dueAt) },
      { condition: where.new() },
    );
    expect(put.Item).toMatchObject({
      ...billingKeys.reservation(organizationId, reservationId),
      ...billingKeys.dueHold(dueWorkShardOf(reservationId), "2026-01-01T01:00:00.000Z", organizationId, reservationId),
      entity: "Reservation",
    });
    expect(put.Item).not.toHaveProperty("organizationId");
    expect(spelled(put.ConditionExpression!, put)).toBe("attribute_not_exists(pk)");
  });

  it("a hold closes once, from Reserved, and leaves the sweeper's index in the same write", () => {
    const close = closeReservation(organizationId, reservationId, "Settled", 7, "2026-01-01T00:00:00.000Z").Update!;
    expect(close.Key).toEqual(billingKeys.reservation(organizationId, reservationId));
    expect(spelled(close.UpdateExpression!, close)).toBe(
      'SET state = "Settled", chargedUnits = 7, closedAt = "2026-01-01T00:00:00.000Z" REMOVE gsi3pk, gsi3sk',
    );
    expect(spelled(close.ConditionExpression!, close)).toBe('state = "Reserved"');
  });

  it("the sweeper moves a waiting hold's entry only from the position it read, within the same shard", () => {
    const seen = `2026-01-01T01:00:00.000Z#${organizationId}#${reservationId}`;
    const update = ReservationEntity.update(
      { organizationId, reservationId },
      {},
      {
        condition: where.all(ReservationEntity.indexedAt("holdCheck", seen), where.equals("state", "Reserved")),
        enter: { holdCheck: { dueAt: "2026-01-01T02:00:00.000Z" } },
      },
    );
    const moved = billingKeys.dueHold(
      dueWorkShardOf(reservationId),
      "2026-01-01T02:00:00.000Z",
      organizationId,
      reservationId,
    );
    expect(spelled(update.UpdateExpression, update)).toBe(`SET gsi3pk = "${moved.gsi3pk}", gsi3sk = "${moved.gsi3sk}"`);
    expect(spelled(update.ConditionExpression!, update)).toBe(`(gsi3sk = "${seen}" AND state = "Reserved")`);
    expect(ReservationEntity.partitionKey("holdCheck", { shard: 3 })).toBe(billingKeys.dueHold(3, "", "", "").gsi3pk);
  });

  it("a ledger entry is new once, listed by amount in its organization's partition", () => {
    const entry = ledgerEntry({
      entryType: "Charge",
      amount: "-1.2500",
      currency: "USD",
      reason: "SmsSegments",
      createdBy: "system",
      createdAt: "2026-01-01T00:00:00.000Z",
    });
    const put = ledgerPut(organizationId, entry).Put!;
    const shard = shardOf(entry.id, ledgerListShards);
    expect(put.Item).toEqual({
      ...billingKeys.ledgerEntry(organizationId, entry.id),
      gsi8pk: `ORG#${organizationId}#LEDGER#${shard}`,
      gsi8sk: `LEDGER#${entry.id}`,
      ...billingKeys.ledgerByAmount(organizationId, entry.amount, entry.id, shard),
      entity: "LedgerEntry",
      amountUnits: -12500,
      ...entry,
    });
    // In a partition of its own; listed by creation and by amount from the shard of its id (issue 27).
    expect(put.Item?.pk).toBe(`ORG#${organizationId}#LEDGER#${entry.id}`);
    expect(spelled(put.ConditionExpression!, put)).toBe("attribute_not_exists(pk)");
  });

  it("a payment to review is in the operator's index by when it arrived", () => {
    const put = PaymentReviewEntity.create({ organizationId, paymentId: "pi_1", receivedAt: "2026-01-01T00:00:00Z" });
    expect(put.Item).toMatchObject({
      ...billingKeys.paymentReview(organizationId, "pi_1"),
      ...billingKeys.paymentReviewIndex("2026-01-01T00:00:00Z", organizationId, "pi_1"),
    });
  });

  it("a wallet change adds to the money and, when it must be covered, keeps the available balance above the floor", () => {
    const change = walletChange(
      organizationId,
      { balance: -5, reserved: 0, available: -5 },
      "2026-01-01T00:00:00.000Z",
      undefined,
      { units: 5, refuseSuspended: true },
    ).Update!;
    expect(change.Key).toEqual(WalletEntity.key({ organizationId }));
    expect(spelled(change.UpdateExpression!, change)).toBe(
      'SET modifiedAt = "2026-01-01T00:00:00.000Z", balanceUnits = if_not_exists(balanceUnits, 0) + -5, ' +
        "reservedUnits = if_not_exists(reservedUnits, 0) + 0, availableUnits = if_not_exists(availableUnits, 0) + -5",
    );
    expect(spelled(change.ConditionExpression!, change)).toMatch(
      /^\(attribute_exists\(pk\) AND attribute_not_exists\(suspendedAt\) AND availableUnits >= -?\d+\)$/,
    );
    const onShard = walletChange(organizationId, { balance: 0, reserved: -5, available: 5 }, "t", 2).Update!;
    expect(onShard.Key).toEqual(billingKeys.walletShard(organizationId, 2));
    expect(spelled(onShard.ConditionExpression!, onShard)).toBe("attribute_exists(pk)");
  });
});

describe("set changes are DynamoDB's ADD and DELETE, never a read-modify-write", () => {
  it("a number is added to, or removed from, a campaign's string set", () => {
    const campaign = { organizationId, id: "c1" };
    const added = TenDlcCampaignEntity.update(campaign, { phoneNumberIds: computed.addToSet("pn1") });
    expect(spelled(added.UpdateExpression, added)).toBe("ADD phoneNumberIds <<pn1>>");
    const removed = TenDlcCampaignEntity.update(
      campaign,
      { phoneNumberIds: computed.deleteFromSet("pn1"), checkedAt: "t" },
      { remove: ["failureReason"] },
    );
    expect(spelled(removed.UpdateExpression, removed)).toBe(
      'SET checkedAt = "t" DELETE phoneNumberIds <<pn1>> REMOVE failureReason',
    );
  });
});
