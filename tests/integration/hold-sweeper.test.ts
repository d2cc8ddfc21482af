import { DeleteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { sweepHolds } from "#core/maintenance/hold-sweeper";
import { db, tableName } from "#core/db/client";
import { keys } from "#core/db/keys";
import { changeMessage, HOLD, storedHoldOnMessage } from "#core/messaging/store";
import { HOLD_CHECK_AFTER_MS, holdCheckEntry } from "#core/billing/reservations";
import { ReservationEntity } from "#core/db/entities/billing";
import { table } from "#core/db/items";
import * as Money from "#core/shared/money";
import { allLedgerEntries } from "#tests/helpers/billing";
import { addNumber, events, magic, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** A message handed to the carrier that never gets a final receipt (scenario 08): Sent, holding its cost. */
async function holdingMessage(org: TestOrganization): Promise<string> {
  const accepted = await send(org, { to: magic("08"), body: "held" });
  await waitForMessage(
    org,
    accepted.body.id,
    (message) => message.status === "Sent" && message.billingStatus === "Reserved",
  );
  return accepted.body.id;
}

/**
 * The same message as a version before issue 27 held it: the hold (its units and wallet shard, the wallet unchanged)
 * in a Reservation item of its own, due to the sweeper, instead of on the message.
 */
async function heldTheOldWay(org: TestOrganization, messageId: string): Promise<void> {
  const hold = await storedHoldOnMessage(org.organizationId, messageId);
  expect(hold).toBeDefined();
  const now = Date.now();
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.message(org.organizationId, messageId),
      UpdateExpression: "REMOVE #hold",
      ExpressionAttributeNames: { "#hold": HOLD },
    }),
  );
  await table.put(
    ReservationEntity.putAt(
      { organizationId: org.organizationId, reservationId: messageId },
      {
        reservationId: messageId,
        state: "Reserved",
        amountUnits: hold!.amountUnits,
        relatedEntityType: "Message",
        createdAt: new Date(now).toISOString(),
        ...(hold!.walletShard !== undefined ? { walletShard: hold!.walletShard } : {}),
        ...holdCheckEntry(org.organizationId, messageId, now + HOLD_CHECK_AFTER_MS),
      },
    ),
  );
}

describe("the hold sweeper", () => {
  applyStackEnv();

  it("settles a hold left open on a final message, releases one whose message is gone, keeps one still under way; wallet = ledger after", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const [delivered, vanished, waiting] = [
      await holdingMessage(org),
      await holdingMessage(org),
      await holdingMessage(org),
    ];
    // Holds in Reservation items, as messages held before issue 27 have them (the sweeper's net is for those, and calls').
    for (const id of [delivered, vanished, waiting]) await heldTheOldWay(org, id);
    // Crash-like paths: the final status written without its settlement (as the status and settlement were two writes),
    // and a message item lost (its hold has no owner any more).
    await changeMessage(org.organizationId, delivered, {
      from: ["Sent"],
      set: { status: "Delivered", deliveredAt: new Date().toISOString() },
      due: null,
    });
    await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.message(org.organizationId, vanished) }));
    expect((await org.request("GET", "/billing/wallet")).body.reservedAmount).not.toBe("0.0000");

    // Nothing is due before the first look.
    expect(await sweepHolds({ organizationId: org.organizationId })).toMatchObject({
      settled: 0,
      released: 0,
      kept: 0,
    });
    const later = new Date(Date.now() + 2 * 3_600_000);
    expect(await sweepHolds({ organizationId: org.organizationId, now: later })).toEqual({
      settled: 1,
      released: 1,
      kept: 1,
      errors: 0,
    });
    expect(await sweepHolds({ organizationId: org.organizationId, now: later })).toEqual({
      settled: 0,
      released: 0,
      kept: 0,
      errors: 0,
    });

    expect((await org.request("GET", `/messages/${delivered}`)).body).toMatchObject({
      status: "Delivered",
      billingStatus: "Charged",
    });
    expect((await org.request("GET", `/messages/${waiting}`)).body).toMatchObject({
      status: "Sent",
      billingStatus: "Reserved",
    });
    const ledger = await allLedgerEntries(org);
    expect(ledger.filter((entry) => entry.messageId === delivered)).toHaveLength(1);
    expect(ledger.filter((entry) => entry.messageId === vanished)).toHaveLength(0);
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet.balance).toBe(Money.toBilling(ledger.reduce((sum, entry) => Money.add(sum, entry.amount), "0")));
    const recovered = await events(org, { eventType: "HoldRecovered" });
    expect(recovered.map((event) => [event.relatedEntityId, event.billingStatus]).sort()).toEqual(
      [
        [delivered, "Charged"],
        [vanished, "Released"],
      ].sort(),
    );
  });

  it("never lets a message end holding money: a write of its ending that does not settle the hold on it is refused", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const held = await holdingMessage(org);
    const ended = await changeMessage(org.organizationId, held, {
      from: ["Sent"],
      set: { status: "Delivered", deliveredAt: new Date().toISOString() },
      due: null,
    });
    expect(ended).toBeUndefined();
    expect((await org.request("GET", `/messages/${held}`)).body).toMatchObject({
      status: "Sent",
      billingStatus: "Reserved",
    });
    expect(await storedHoldOnMessage(org.organizationId, held)).toBeDefined();
  });
});
