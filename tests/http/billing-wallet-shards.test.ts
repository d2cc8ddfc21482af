import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as Billing from "#core/billing/index";
import { WalletRefusedError } from "#core/billing/index";
import { shardsHoldMoney, WALLET_SHARDS } from "#core/billing/wallet-shards";
import { readWalletParts } from "#core/billing/wallet-store";
import { ReservationEntity, WalletShardEntity } from "#core/db/entities/billing";
import { getItems } from "#core/db/items";
import * as Money from "#core/shared/money";
import { allLedgerEntries, setAvailableBalance } from "#tests/helpers/billing";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** Final and billed: the settlement follows the final status by a moment. */
const settled = (message: any) =>
  ["Delivered", "Undelivered", "Failed", "Blocked", "Canceled"].includes(message.status) &&
  message.billingStatus !== "Reserved";

/**
 * Of these holds of an organization, those taken from a wallet shard (issue 27) rather than the wallet item: their ids.
 * Each hold is in a partition of its own, read by its key (a scan of the table grows with every test file run before).
 */
async function holdsOnShards(org: TestOrganization, reservationIds: string[]): Promise<Set<string>> {
  applyStackEnv();
  const holds = await getItems(
    reservationIds.map((reservationId) => ReservationEntity.key({ organizationId: org.organizationId, reservationId })),
    { consistent: true },
  );
  return new Set(holds.filter((item) => item.walletShard !== undefined).map((item) => String(item.reservationId)));
}

/** Charges counted on the wallet's shards: a charge taken from a shard's hold is counted on the shard (core/billing/usage.ts). */
async function chargesOnShards(org: TestOrganization): Promise<number> {
  applyStackEnv();
  const shards = await getItems(
    Array.from({ length: WALLET_SHARDS }, (_, shard) =>
      WalletShardEntity.key({ organizationId: org.organizationId, shard }),
    ),
    { consistent: true },
  );
  return shards.reduce((sum, shard) => sum + Number(shard.usageCharges ?? 0), 0);
}

async function expectWalletAddsUp(org: TestOrganization) {
  const wallet = (await org.request("GET", "/billing/wallet")).body;
  const ledger = await allLedgerEntries(org, 7);
  expect(Money.toBilling(Money.sum(ledger.map((entry) => entry.amount)))).toBe(wallet.balance);
  expect(Money.toBilling(Money.subtract(wallet.balance, wallet.reservedAmount))).toBe(wallet.availableBalance);
  expect(Money.compare(wallet.availableBalance, wallet.floor)).toBeGreaterThanOrEqual(0);
  return wallet;
}

describe("a wallet split over sub-balances (issue 27)", () => {
  it("40 concurrent sends on a wallet that covers 32: holds come from shards, then the wallet item, and exactly 32 are charged", async () => {
    const org = await newOrganization();
    // A 20-MPS number: the subject is the wallet, and a long code's 1 MPS pacing alone would spread the 32 sends over 40 s.
    await addNumber(org, "212", undefined, 20);
    expect((await org.request("PUT", "/billing/wallet", { body: { lowBalanceThreshold: "0" } })).status).toBe(200);
    // 32 SMS at 0.01: well funded at first (shards take chunks), short at the end (shards give their money back).
    await setAvailableBalance(org, "0.3200");
    const attempts = await Promise.all(
      Array.from({ length: 40 }, (_, index) => send(org, { to: randomNumber(), body: `Shard ${index}` })),
    );
    expect(attempts.every((attempt) => attempt.status === 202 || attempt.status === 402)).toBe(true);
    const accepted = attempts.filter((attempt) => attempt.status === 202);
    // One message at a time: 40 pollers at once would exceed the organization's rate limit.
    const final = [];
    for (const attempt of accepted) final.push(await waitForMessage(org, attempt.body.id, settled, 60_000));
    const charged = final.filter((message) => message.billingStatus === "Charged");
    expect(charged).toHaveLength(32);
    expect(final.filter((message) => message.status === "Blocked")).toHaveLength(accepted.length - 32);
    // The messages' holds (kept on the messages since issue 27, gone once settled) were taken from shards.
    expect(await chargesOnShards(org)).toBeGreaterThan(0);
    expect(await expectWalletAddsUp(org)).toMatchObject({
      balance: "0.0000",
      reservedAmount: "0.0000",
      availableBalance: "0.0000",
      status: "Empty",
    });
    expect((await send(org, { to: randomNumber(), body: "one more" })).status).toBe(402);
  }, 180_000);

  it("money on shards still pays an adjustment and obeys a suspension; 120 parallel holds on 100 never overspend", async () => {
    const org = await newOrganization();
    applyStackEnv();
    expect((await org.request("PUT", "/billing/wallet", { body: { lowBalanceThreshold: "0" } })).status).toBe(200);
    await setAvailableBalance(org, "1.0000");
    const hold = (reservationId: string) =>
      Billing.reserve({
        organizationId: org.organizationId,
        reservationId,
        amount: "0.0100",
        relatedEntityType: "Message",
      })
        .then(() => reservationId)
        .catch((error: unknown) => {
          if (error instanceof WalletRefusedError) return undefined;
          throw error;
        });
    const held = (await Promise.all(Array.from({ length: 120 }, () => hold(`test-${randomUUID()}`)))).filter(
      (id): id is string => id !== undefined,
    );
    expect(held).toHaveLength(100);
    const onShards = await holdsOnShards(org, held);
    expect(onShards.size).toBeGreaterThan(0);
    expect(await expectWalletAddsUp(org)).toMatchObject({ reservedAmount: "1.0000", availableBalance: "0.0000" });

    // Release the holds taken from shards (their money goes back to those shards), charge the others.
    await Promise.all(
      held.map((reservationId) =>
        onShards.has(reservationId)
          ? Billing.release(org.organizationId, reservationId)
          : Billing.settle({
              organizationId: org.organizationId,
              reservationId,
              relatedEntityId: reservationId,
              amount: "0.0100",
              reason: "SmsSegments",
            }),
      ),
    );
    const left = Money.toBilling(Money.multiply("0.0100", onShards.size));
    expect(await expectWalletAddsUp(org)).toMatchObject({
      balance: left,
      reservedAmount: "0.0000",
      availableBalance: left,
    });

    // That money sits on the shards; an adjustment that needs it gets it back to the wallet item first.
    expect(shardsHoldMoney((await readWalletParts(org.organizationId))!)).toBe(true);
    await setAvailableBalance(org, "0.0000");
    expect(await expectWalletAddsUp(org)).toMatchObject({ balance: "0.0000", availableBalance: "0.0000" });
    await setAvailableBalance(org, "0.5000");

    // A suspension binds holds that would have come from a shard.
    for (let index = 0; index < 5; index++) await hold(`test-${randomUUID()}`);
    await Billing.setSuspended(org.organizationId, true);
    await expect(
      Billing.reserve({
        organizationId: org.organizationId,
        reservationId: `test-${randomUUID()}`,
        amount: "0.0100",
        relatedEntityType: "Message",
      }),
    ).rejects.toMatchObject({ billingStatus: "WalletSuspended" });
    await expectWalletAddsUp(org);
  }, 180_000);
});
