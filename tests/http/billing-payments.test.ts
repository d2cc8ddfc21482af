import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { DEFAULT_TRIAL_CREDIT } from "#core/billing/index";
import * as Money from "#core/shared/money";
import { environmentNames } from "#stacks/definitions";
import { adminCli } from "#tests/helpers/admin";
import { allLedgerEntries, paymentSimulator, startTopUp, topUp } from "#tests/helpers/billing";
import { applyStackEnv, newOrganization, request, type TestOrganization } from "#tests/helpers/stack";

/** Posts a Stripe event to the API as Stripe would, signed with `secret` (the stack's signing secret unless given). */
async function deliver(
  event: unknown,
  options: { secret?: string; timestamp?: number; signature?: string | null } = {},
) {
  applyStackEnv();
  const payload = JSON.stringify(event);
  const secret = options.secret ?? process.env[environmentNames.stripeWebhookSecret]!;
  const signature =
    options.signature === undefined
      ? Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: options.timestamp })
      : options.signature;
  return request("POST", "/webhooks/payments/stripe", {
    body: payload,
    headers: { "content-type": "application/json", ...(signature === null ? {} : { "stripe-signature": signature }) },
  });
}

async function wallet(org: TestOrganization) {
  return (await org.request("GET", "/billing/wallet")).body;
}

async function expectBalanceIsLedgerSum(org: TestOrganization) {
  const entries = await allLedgerEntries(org);
  expect(Money.toBilling(Money.sum(entries.map((entry) => entry.amount)))).toBe((await wallet(org)).balance);
}

/** A paid top-up: its id and the provider's payment id. */
async function paidTopUp(org: TestOrganization, amount: string) {
  const started = await topUp(org, amount);
  const read = await org.request("GET", `/billing/wallet/top-ups/${started.body.id}`);
  expect(read.body.status).toBe("Succeeded");
  return { topUpId: started.body.id as string, paymentId: read.body.paymentId as string };
}

describe("payments: top-ups through Stripe", () => {
  const admin = adminCli();
  it("creates the Checkout Session with the exact request Stripe expects: secret key, Idempotency-Key, amount in cents, the top-up in metadata", async () => {
    const org = await newOrganization();
    const started = await org.request("POST", "/billing/wallet/top-ups", {
      body: { amount: "12.34", successUrl: "https://example.com/paid", cancelUrl: "https://example.com/cancelled" },
      headers: { "idempotency-key": randomUUID() },
    });
    expect(started.status).toBe(201);
    const requests = (await paymentSimulator("requests")).body as {
      method: string;
      path: string;
      authorization: string;
      idempotencyKey: string;
      form: Record<string, string>;
    }[];
    const create = requests.find((entry) => entry.form["metadata[topUpId]"] === started.body.id);
    expect(create).toMatchObject({
      method: "POST",
      path: "/v1/checkout/sessions",
      authorization: "Bearer sk_test_local_payment_simulator",
      idempotencyKey: `top-up-${started.body.id}`,
    });
    expect(create!.form).toMatchObject({
      mode: "payment",
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": "usd",
      "line_items[0][price_data][unit_amount]": "1234",
      "metadata[organizationId]": org.organizationId,
      "payment_intent_data[metadata][organizationId]": org.organizationId,
      "payment_intent_data[metadata][topUpId]": started.body.id,
      client_reference_id: org.organizationId,
      success_url: "https://example.com/paid",
      cancel_url: "https://example.com/cancelled",
    });
  });

  it("an unsigned, forged or stale event is refused with 400 and credits nothing", async () => {
    const org = await newOrganization();
    const started = await startTopUp(org, "50.00");
    const paid = await paymentSimulator(`sessions/${started.body.checkoutSessionId}/pay`, { deliver: false });
    const event = {
      id: "evt_forged",
      object: "event",
      type: "checkout.session.completed",
      data: { object: paid.body.session },
    };
    for (const attempt of [
      await deliver(event, { signature: null }),
      await deliver(event, { secret: "whsec_not_the_endpoint_secret" }),
      await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
      await deliver(event, { signature: "t=1,v1=deadbeef" }),
    ]) {
      expect(attempt.status).toBe(400);
      expect(attempt.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await wallet(org)).balance).toBe(DEFAULT_TRIAL_CREDIT);
    expect((await org.request("GET", `/billing/wallet/top-ups/${started.body.id}`)).body.status).toBe("Pending");
  });

  it("credits once per payment: the completed session and the payment intent events, redelivered and concurrent, add the amount once", async () => {
    const org = await newOrganization();
    const started = await startTopUp(org, "30.00");
    const paid = await paymentSimulator(`sessions/${started.body.checkoutSessionId}/pay`, { deliver: false });
    const session = {
      id: "evt_session",
      object: "event",
      type: "checkout.session.completed",
      data: { object: paid.body.session },
    };
    const intent = {
      id: "evt_intent",
      object: "event",
      type: "payment_intent.succeeded",
      data: {
        object: {
          id: paid.body.paymentIntentId,
          object: "payment_intent",
          amount_received: 3000,
          currency: "usd",
          status: "succeeded",
          metadata: { organizationId: org.organizationId, topUpId: started.body.id },
        },
      },
    };
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, () => deliver(session)),
      ...Array.from({ length: 6 }, () => deliver(intent)),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    expect(answers.filter((answer) => answer.body.outcome === "credited")).toHaveLength(1);
    expect((await allLedgerEntries(org)).filter((entry) => entry.entryType === "TopUp")).toEqual([
      expect.objectContaining({ amount: "30.0000", reference: paid.body.paymentIntentId }),
    ]);
    expect((await wallet(org)).balance).toBe(Money.toBilling(Money.add(DEFAULT_TRIAL_CREDIT, "30")));
  });

  it("credits an event in Stripe's documented shape (recorded fixture) for a top-up this API started", async () => {
    const org = await newOrganization();
    const started = await startTopUp(org, "42.50");
    const fixture = readFileSync("tests/fixtures/stripe/checkout.session.completed.json", "utf8")
      .replaceAll("ORGANIZATION_ID", org.organizationId)
      .replaceAll("TOP_UP_ID", started.body.id)
      .replaceAll("cs_test_a1recordedsession", started.body.checkoutSessionId);
    const answer = await deliver(JSON.parse(fixture));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ received: true, outcome: "credited" });
    expect((await org.request("GET", `/billing/wallet/top-ups/${started.body.id}`)).body).toMatchObject({
      status: "Succeeded",
      paymentId: "pi_3QrecordedIntent",
    });
    expect((await wallet(org)).balance).toBe(Money.toBilling(Money.add(DEFAULT_TRIAL_CREDIT, "42.50")));
  });

  it("ignores events of payments this API did not start, of another organization's top-up, and of unknown types", async () => {
    const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
    const started = await startTopUp(other, "10.00");
    const foreign = {
      id: "cs_test_foreign",
      object: "checkout.session",
      payment_status: "paid",
      payment_intent: "pi_foreign",
      amount_total: 1000,
      currency: "usd",
    };
    const crossTenant = {
      ...foreign,
      payment_intent: "pi_cross",
      metadata: { organizationId: org.organizationId, topUpId: started.body.id },
    };
    for (const event of [
      {
        id: "evt_1",
        object: "event",
        type: "checkout.session.completed",
        data: { object: { ...foreign, metadata: {} } },
      },
      { id: "evt_2", object: "event", type: "checkout.session.completed", data: { object: crossTenant } },
      { id: "evt_3", object: "event", type: "customer.created", data: { object: { id: "cus_1", object: "customer" } } },
    ]) {
      const answer = await deliver(event);
      expect(answer.status).toBe(200);
      expect(answer.body.outcome).toBe("ignored");
    }
    expect((await wallet(org)).balance).toBe(DEFAULT_TRIAL_CREDIT);
    expect((await wallet(other)).balance).toBe(DEFAULT_TRIAL_CREDIT);
  });

  it("an expired checkout ends the top-up Expired, and a provider outage answers 502 with the top-up Failed and nothing charged", async () => {
    const org = await newOrganization();
    const started = await startTopUp(org, "5.00");
    await paymentSimulator(`sessions/${started.body.checkoutSessionId}/expire`);
    expect((await org.request("GET", `/billing/wallet/top-ups/${started.body.id}`)).body).toMatchObject({
      status: "Expired",
      checkoutUrl: null,
    });
    await paymentSimulator("outage", { requests: 2 });
    const refused = await startTopUp(org, "5.00");
    expect(refused.status).toBe(502);
    expect(refused.body.detail).toMatch(/nothing was charged/);
    expect((await wallet(org)).balance).toBe(DEFAULT_TRIAL_CREDIT);
  });

  it("a signed payment credits only its own top-up: another session, amount or currency, or a top-up no longer Pending, is recorded for review and credits nothing", async () => {
    const org = await newOrganization();
    const started = await startTopUp(org, "1.00");
    const paid = await paymentSimulator(`sessions/${started.body.checkoutSessionId}/pay`, { deliver: false });
    const session = paid.body.session;
    const completed = (id: string, object: Record<string, unknown>) => ({
      id,
      object: "event",
      type: "checkout.session.completed",
      data: { object: { ...session, ...object } },
    });
    const attempts = [
      completed("evt_inflated", { payment_intent: "pi_inflated", amount_total: 250_000 }),
      completed("evt_other_session", { id: "cs_test_not_this_top_up", payment_intent: "pi_other_session" }),
      completed("evt_other_currency", { payment_intent: "pi_other_currency", currency: "eur" }),
    ];
    for (const event of [...attempts, attempts[0]!]) {
      const answer = await deliver(event);
      expect([answer.status, answer.body.outcome]).toEqual([200, "recorded"]);
    }
    expect((await wallet(org)).balance).toBe(DEFAULT_TRIAL_CREDIT);
    expect((await org.request("GET", `/billing/wallet/top-ups/${started.body.id}`)).body.status).toBe("Pending");

    // Its own payment credits it; a second payment for the same top-up then finds it Succeeded.
    expect((await deliver(completed("evt_own", {}))).body.outcome).toBe("credited");
    expect((await deliver(completed("evt_second", { payment_intent: "pi_second" }))).body.outcome).toBe("recorded");
    expect((await wallet(org)).balance).toBe(Money.toBilling(Money.add(DEFAULT_TRIAL_CREDIT, "1")));

    const listed = (await admin("payments-to-review")).output.filter(
      (review: { organizationId: string }) => review.organizationId === org.organizationId,
    );
    expect(listed.map((review: { paymentId: string }) => review.paymentId).sort()).toEqual([
      "pi_inflated",
      "pi_other_currency",
      "pi_other_session",
      "pi_second",
    ]);
    expect(listed.find((review: { paymentId: string }) => review.paymentId === "pi_inflated")).toMatchObject({
      topUpId: started.body.id,
      amount: "2500.00",
      topUpAmount: "1.0000",
      mismatches: ["paid 2500.0000, the top-up asked for 1.0000"],
    });
    expect((await admin("status")).output.paymentsToReview).toBeGreaterThanOrEqual(4);
  });

  it("another organization's top-up is not found", async () => {
    const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
    const started = await startTopUp(other, "5.00");
    expect((await org.request("GET", `/billing/wallet/top-ups/${started.body.id}`)).status).toBe(404);
  });
});

describe("payments: refunds and disputes", () => {
  it("refunds are negative ledger entries of what was refunded since the last event; a replay adds nothing", async () => {
    const org = await newOrganization();
    const { topUpId, paymentId } = await paidTopUp(org, "20.00");
    expect((await paymentSimulator(`payments/${paymentId}/refund`, { amount: 500 })).body.deliveries[0].status).toBe(
      200,
    );
    const full = await paymentSimulator(`payments/${paymentId}/refund`);
    // The same refund event again: Stripe's cumulative amount_refunded makes it a no-op.
    const replay = await paymentSimulator("events", {
      type: "charge.refunded",
      object: { id: "ch_replayed", object: "charge", payment_intent: paymentId, amount_refunded: 2000 },
    });
    expect(full.body.deliveries[0].status).toBe(200);
    expect(replay.body.deliveries[0].body).toContain('"ignored"');
    const refunds = (await allLedgerEntries(org)).filter((entry) => entry.entryType === "Refund");
    expect(refunds.map((entry) => entry.amount).sort()).toEqual(["-15.0000", "-5.0000"]);
    expect((await org.request("GET", `/billing/wallet/top-ups/${topUpId}`)).body).toMatchObject({
      status: "Refunded",
      refundedAmount: "20.0000",
    });
    expect((await wallet(org)).balance).toBe(DEFAULT_TRIAL_CREDIT);
    await expectBalanceIsLedgerSum(org);
  });

  it("a refund of money already spent leaves the wallet below zero and suspended; a new payment lifts the suspension", async () => {
    const org = await newOrganization();
    const { paymentId } = await paidTopUp(org, "10.00");
    const spend = Money.add(DEFAULT_TRIAL_CREDIT, "8");
    await org.request("GET", "/billing/wallet");
    const Billing = await import("#core/billing/index");
    applyStackEnv();
    await Billing.reserve({
      organizationId: org.organizationId,
      reservationId: `spend-${randomUUID()}`,
      amount: spend,
      relatedEntityType: "Message",
    });
    await paymentSimulator(`payments/${paymentId}/refund`);
    expect(await wallet(org)).toMatchObject({
      status: "Suspended",
      suspendedReason: "A refund left the available balance below zero",
    });
    expect(Money.isNegative((await wallet(org)).availableBalance)).toBe(true);
    await topUp(org, "20.00");
    expect(await wallet(org)).toMatchObject({ suspendedAt: null, suspendedReason: null });
    await expectBalanceIsLedgerSum(org);
  });

  it("a dispute takes its amount and suspends the wallet; won, the amount comes back and the suspension lifts; each event counts once", async () => {
    const org = await newOrganization();
    const { paymentId } = await paidTopUp(org, "15.00");
    const opened = await paymentSimulator(`payments/${paymentId}/dispute`);
    await paymentSimulator("events", {
      type: "charge.dispute.created",
      object: {
        id: opened.body.disputeId,
        object: "dispute",
        amount: 1500,
        currency: "usd",
        payment_intent: paymentId,
        reason: "fraudulent",
        status: "needs_response",
      },
    });
    expect(await wallet(org)).toMatchObject({ status: "Suspended", suspendedReason: "A payment was disputed" });
    expect((await allLedgerEntries(org)).filter((entry) => entry.entryType === "Dispute")).toEqual([
      expect.objectContaining({ amount: "-15.0000", reference: opened.body.disputeId }),
    ]);
    await paymentSimulator(`disputes/${opened.body.disputeId}/close`, { status: "won" });
    await paymentSimulator(`disputes/${opened.body.disputeId}/close`, { status: "won" });
    expect((await allLedgerEntries(org)).filter((entry) => entry.entryType === "DisputeWon")).toEqual([
      expect.objectContaining({ amount: "15.0000" }),
    ]);
    expect(await wallet(org)).toMatchObject({
      suspendedAt: null,
      balance: Money.toBilling(Money.add(DEFAULT_TRIAL_CREDIT, "15")),
    });
    await expectBalanceIsLedgerSum(org);
  });

  it("an inquiry (a dispute still in its warning stage) moves no money and suspends nothing", async () => {
    const org = await newOrganization();
    const { paymentId } = await paidTopUp(org, "12.00");
    const inquiry = await paymentSimulator("events", {
      type: "charge.dispute.created",
      object: {
        id: "dp_inquiry",
        object: "dispute",
        amount: 1200,
        currency: "usd",
        payment_intent: paymentId,
        reason: "general",
        status: "warning_needs_response",
      },
    });
    expect(inquiry.body.deliveries[0].body).toContain('"ignored"');
    expect(await wallet(org)).toMatchObject({
      suspendedAt: null,
      balance: Money.toBilling(Money.add(DEFAULT_TRIAL_CREDIT, "12")),
    });
    expect((await allLedgerEntries(org)).filter((entry) => entry.entryType === "Dispute")).toEqual([]);
  });

  it("a lost dispute keeps the amount taken; an operator's suspension is never lifted by a payment event", async () => {
    const org = await newOrganization();
    const { paymentId } = await paidTopUp(org, "15.00");
    const opened = await paymentSimulator(`payments/${paymentId}/dispute`, { amount: 700 });
    await paymentSimulator(`disputes/${opened.body.disputeId}/close`, { status: "lost" });
    expect(await wallet(org)).toMatchObject({
      suspendedAt: null,
      balance: Money.toBilling(Money.add(DEFAULT_TRIAL_CREDIT, "8")),
    });
    const Billing = await import("#core/billing/index");
    applyStackEnv();
    await Billing.setSuspended(org.organizationId, true, "Terms of service review");
    await topUp(org, "5.00");
    expect(await wallet(org)).toMatchObject({ status: "Suspended", suspendedReason: "Terms of service review" });
    await expectBalanceIsLedgerSum(org);
  });

  it("a refund reported before the payment's own event credits the payment first (read back from Stripe), then the refund; the late event adds nothing", async () => {
    const org = await newOrganization();
    const started = await startTopUp(org, "9.00");
    const paid = await paymentSimulator(`sessions/${started.body.checkoutSessionId}/pay`, { deliver: false });
    await paymentSimulator(`payments/${paid.body.paymentIntentId}/refund`, { amount: 400 });
    const late = await deliver({
      id: "evt_late",
      object: "event",
      type: "checkout.session.completed",
      data: { object: paid.body.session },
    });
    expect(late.body.outcome).toBe("ignored");
    const entries = await allLedgerEntries(org);
    expect(entries.filter((entry) => entry.entryType === "TopUp").map((entry) => entry.amount)).toEqual(["9.0000"]);
    expect(entries.filter((entry) => entry.entryType === "Refund").map((entry) => entry.amount)).toEqual(["-4.0000"]);
    const requests = (await paymentSimulator("requests")).body as { method: string; path: string }[];
    expect(requests).toContainEqual(
      expect.objectContaining({ method: "GET", path: `/v1/payment_intents/${paid.body.paymentIntentId}` }),
    );
    await expectBalanceIsLedgerSum(org);
  });
});
