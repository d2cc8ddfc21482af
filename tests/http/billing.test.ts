import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as Billing from "#core/billing/index";
import { DEFAULT_TRIAL_CREDIT } from "#core/billing/index";
import * as Money from "#core/shared/money";
import { allLedgerEntries, paymentSimulator, setAvailableBalance, startTopUp, topUp } from "#tests/helpers/billing";
import { applyStackEnv, newOrganization, request } from "#tests/helpers/stack";
import { seededRandom } from "#local/seeded-random";

describe("billing: wallet", () => {
  it("opens a new organization's wallet with the trial credit, recorded in the ledger", async () => {
    const org = await newOrganization();
    const wallet = await org.request("GET", "/billing/wallet");
    expect(wallet.status).toBe(200);
    expect(wallet.body).toMatchObject({
      organizationId: org.organizationId,
      currency: "USD",
      balance: DEFAULT_TRIAL_CREDIT,
      reservedAmount: "0.0000",
      availableBalance: DEFAULT_TRIAL_CREDIT,
      status: "Active",
      lowBalanceThreshold: "1.0000",
      floor: "0.0000",
      suspendedAt: null,
      prices: {
        currency: "USD",
        smsSegment: "0.0100",
        mmsMessage: "0.0300",
        callMinute: "0.0200",
        callRounding: "PerStartedMinute",
      },
    });
    const ledger = await allLedgerEntries(org);
    expect(ledger).toEqual([
      expect.objectContaining({ entryType: "TrialCredit", amount: DEFAULT_TRIAL_CREDIT, reason: "TrialCredit" }),
    ]);
  });

  it("reports Low below the threshold, Empty with nothing available and Suspended when the operator suspends it", async () => {
    const org = await newOrganization();
    await setAvailableBalance(org, "0.5000");
    expect((await org.request("GET", "/billing/wallet")).body.status).toBe("Low");
    const raised = await org.request("PUT", "/billing/wallet", { body: { lowBalanceThreshold: "0.25" } });
    expect(raised.status).toBe(200);
    expect(raised.body).toMatchObject({ lowBalanceThreshold: "0.2500", status: "Active" });
    await setAvailableBalance(org, "0");
    expect((await org.request("GET", "/billing/wallet")).body.status).toBe("Empty");
    await Billing.setSuspended(org.organizationId, true, "Chargeback");
    expect((await org.request("GET", "/billing/wallet")).body).toMatchObject({
      status: "Suspended",
      suspendedReason: "Chargeback",
    });
  });

  it("needs billing:read to read and billing:write to credit", async () => {
    const org = await newOrganization();
    expect((await org.request("GET", "/billing/wallet", { token: org.memberToken })).status).toBe(200);
    expect((await request("GET", "/billing/wallet")).status).toBe(401);
    for (const token of [org.adminToken, org.memberToken]) {
      const refused = await org.request("POST", "/billing/wallet/top-ups", {
        token,
        body: { amount: "10" },
        headers: { "idempotency-key": randomUUID() },
      });
      expect(refused.status).toBe(403);
    }
    expect(
      (await org.request("PUT", "/billing/wallet", { token: org.adminToken, body: { lowBalanceThreshold: "2" } }))
        .status,
    ).toBe(403);
  });
});

describe("billing: top-ups", () => {
  it("a top-up is a pending payment: nothing is credited until the payment provider's signed event, then exactly its amount", async () => {
    const org = await newOrganization();
    const response = await startTopUp(org, "25.10");
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({
      amount: "25.1000",
      currency: "USD",
      status: "Pending",
      paymentId: null,
      createdBy: org.userIds.owner,
    });
    expect(response.body.checkoutUrl).toMatch(/\/pay\/cs_test_/);
    expect((await org.request("GET", "/billing/wallet")).body.balance).toBe(DEFAULT_TRIAL_CREDIT);
    expect((await paymentSimulator(`sessions/${response.body.checkoutSessionId}/pay`)).status).toBe(200);
    const paid = await org.request("GET", `/billing/wallet/top-ups/${response.body.id}`);
    expect(paid.body).toMatchObject({
      status: "Succeeded",
      paymentId: expect.stringMatching(/^pi_/),
      checkoutUrl: null,
      completedAt: expect.any(String),
    });
    const entries = (await allLedgerEntries(org)).filter((entry) => entry.entryType === "TopUp");
    expect(entries).toEqual([
      expect.objectContaining({
        amount: "25.1000",
        reason: "TopUp",
        reference: paid.body.paymentId,
        createdBy: "payments",
      }),
    ]);
    expect((await org.request("GET", "/billing/wallet")).body.balance).toBe(
      Money.toBilling(Money.add(DEFAULT_TRIAL_CREDIT, "25.10")),
    );
  });

  it("one payment per Idempotency-Key: the replay answers the same top-up, the key with another body is a 422", async () => {
    const org = await newOrganization();
    const key = randomUUID();
    const attempts = await Promise.all(Array.from({ length: 5 }, () => startTopUp(org, "7.00", key)));
    const created = attempts.filter((attempt) => attempt.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(attempts.every((attempt) => attempt.status === 201 || attempt.status === 409)).toBe(true);
    const replay = await startTopUp(org, "7.00", key);
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(created[0]!.body.id);
    expect((await startTopUp(org, "8.00", key)).status).toBe(422);
  });

  it("refuses a top-up without an Idempotency-Key", async () => {
    const org = await newOrganization();
    const response = await org.request("POST", "/billing/wallet/top-ups", { body: { amount: "5" } });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ pointer: "/header/Idempotency-Key" })]);
  });

  it.each([["0"], ["-5"], ["0.99"], ["1.234"], ["10000.01"], ["abc"], [""]])(
    "refuses the amount %j with a pointer to it",
    async (amount) => {
      const org = await newOrganization();
      const response = await startTopUp(org, amount);
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(["/amount"]);
    },
  );

  it("refuses unknown fields (a reference cannot be claimed) and a missing amount", async () => {
    const org = await newOrganization();
    const response = await org.request("POST", "/billing/wallet/top-ups", {
      body: { reference: "ch_1" },
      headers: { "idempotency-key": randomUUID() },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/amount",
      "/reference",
    ]);
  });
});

describe("billing: ledger", () => {
  it("pages the ledger newest first and its sum equals the balance", async () => {
    const org = await newOrganization();
    for (const amount of ["1.00", "2.00", "3.00", "4.00"]) expect((await topUp(org, amount)).status).toBe(201);
    const first = await org.request("POST", "/billing/ledger/all/my", { body: { pageSize: 2, includeCount: true } });
    expect(first.status).toBe(200);
    expect(first.body.items.map((entry: { amount: string }) => entry.amount)).toEqual(["4.0000", "3.0000"]);
    expect(first.body.totalCount).toBe(5);
    expect(first.body.continuationToken).toEqual(expect.any(String));
    const entries = await allLedgerEntries(org, 2);
    expect(entries).toHaveLength(5);
    const wallet = await org.request("GET", "/billing/wallet");
    expect(Money.toBilling(Money.sum(entries.map((entry) => entry.amount)))).toBe(wallet.body.balance);
    // Ordered by amount from its index (gsi5), largest first, the id breaking ties.
    const byAmount = await org.request("POST", "/billing/ledger/all/my", {
      body: { orderBy: [{ field: "amount", direction: "desc" }] },
    });
    const expected = [...entries].sort(
      (a, b) => Number(b.amount) - Number(a.amount) || (String(a.id) < String(b.id) ? 1 : -1),
    );
    expect(byAmount.body.items.map((entry: { id: string }) => entry.id)).toEqual(expected.map((entry) => entry.id));
  });

  it("filters by entry type and never shows another organization's entries", async () => {
    const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
    await topUp(other, "9.00");
    await topUp(org, "1.00");
    const page = await org.request("POST", "/billing/ledger/all/my", {
      body: { filters: [{ field: "entryType", value: "TopUp" }] },
    });
    expect(page.status).toBe(200);
    expect(page.body.items).toEqual([expect.objectContaining({ amount: "1.0000" })]);
    const bad = await org.request("POST", "/billing/ledger/all/my", {
      body: { filters: [{ field: "secret", value: 1 }] },
    });
    expect(bad.status).toBe(400);
  });

  it("keeps balance = sum of the ledger and available = balance − reserved under random concurrent top-ups, holds and charges", async () => {
    applyStackEnv();
    for (const seed of [1, 2, 3]) {
      const org = await newOrganization();
      const random = seededRandom(seed);
      const work: Promise<unknown>[] = [];
      for (let step = 0; step < 24; step++) {
        const cents = 1 + Math.floor(random() * 300);
        const amount = Money.divide(String(cents), 100, 2);
        const roll = random();
        if (roll < 0.35) work.push(topUp(org, Money.add("1", amount)));
        else {
          const reservationId = `test-${randomUUID()}`;
          const settleFor = Money.divide(String(Math.floor(random() * cents * 1.5)), 100, 2);
          const release = roll > 0.85;
          const keepOpen = roll > 0.8 && !release;
          work.push(
            Billing.reserve({ organizationId: org.organizationId, reservationId, amount, relatedEntityType: "Message" })
              .then(() => {
                if (keepOpen) return undefined;
                if (release) return Billing.release(org.organizationId, reservationId);
                return Billing.settle({
                  organizationId: org.organizationId,
                  reservationId,
                  relatedEntityId: reservationId,
                  amount: settleFor,
                  reason: "SmsSegments",
                });
              })
              .catch((error: unknown) => {
                if (!(error instanceof Error && error.name === "WalletRefusedError")) throw error;
              }),
          );
        }
      }
      await Promise.all(work);
      const wallet = (await org.request("GET", "/billing/wallet")).body;
      const entries = await allLedgerEntries(org, 7);
      expect(Money.toBilling(Money.sum(entries.map((entry) => entry.amount)))).toBe(wallet.balance);
      expect(Money.toBilling(Money.subtract(wallet.balance, wallet.reservedAmount))).toBe(wallet.availableBalance);
      expect(Money.compare(wallet.availableBalance, wallet.floor)).toBeGreaterThanOrEqual(0);
      expect(Money.compare(wallet.balance, wallet.floor)).toBeGreaterThanOrEqual(0);
    }
  });
});
