import { randomUUID } from "node:crypto";
import * as Billing from "#core/billing/index";
import * as Money from "#core/shared/money";
import { applyStackEnv, type TestOrganization } from "#tests/helpers/stack";
import { environmentNames } from "#stacks/definitions";

/**
 * Brings the organization's available balance to exactly `amount` with an
 * operator adjustment (the ledger records it, so balance = sum of the ledger still holds).
 */
export async function setAvailableBalance(org: TestOrganization, amount: string): Promise<void> {
  applyStackEnv();
  const wallet = await Billing.wallet(org.organizationId);
  const delta = Money.subtract(amount, wallet.availableBalance);
  if (!Money.isZero(delta)) await Billing.adjust(org.organizationId, delta, "Test set-up");
}

/** `POST /billing/wallet/top-ups` with a fresh Idempotency-Key unless one is given: a pending top-up, nothing credited yet. */
export function startTopUp(org: TestOrganization, amount: string, idempotencyKey: string = randomUUID()) {
  return org.request("POST", "/billing/wallet/top-ups", {
    body: { amount },
    headers: { "idempotency-key": idempotencyKey },
  });
}

/** A control of the local payment simulator (local/payment-simulator.ts): pay, refund, dispute, replay… */
export async function paymentSimulator(path: string, body: unknown = {}): Promise<{ status: number; body: any }> {
  applyStackEnv();
  const response = await fetch(`${process.env[environmentNames.stripeApiUrl]}/simulator/${path}`, {
    method: "POST",
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Starts a top-up and pays it at the payment simulator, whose signed events credit the wallet before this returns. */
export async function topUp(org: TestOrganization, amount: string, idempotencyKey: string = randomUUID()) {
  const started = await startTopUp(org, amount, idempotencyKey);
  if (started.status === 201 && started.body.status === "Pending") {
    const paid = await paymentSimulator(`sessions/${started.body.checkoutSessionId}/pay`);
    if (paid.status !== 200 || paid.body.deliveries.some((delivery: { status: number }) => delivery.status !== 200)) {
      throw new Error(`paying top-up ${started.body.id}: ${JSON.stringify(paid.body)}`);
    }
  }
  return started;
}

/** Every ledger entry, following continuation tokens. */
export async function allLedgerEntries(
  org: TestOrganization,
  pageSize = 200,
): Promise<{ amount: string; entryType: string; [field: string]: unknown }[]> {
  const entries = [];
  let continuationToken: string | null = null;
  do {
    const page: { status: number; body: any } = await org.request("POST", "/billing/ledger/all/my", {
      body: { pageSize, continuationToken },
    });
    if (page.status !== 200) throw new Error(`ledger page: ${page.status} ${JSON.stringify(page.body)}`);
    entries.push(...page.body.items);
    continuationToken = page.body.continuationToken;
  } while (continuationToken);
  return entries;
}

/** The wallet's balance minus `spent`: what it should read after those charges (numbers added before pay their first month). */
export async function balanceLess(org: TestOrganization, spent: string): Promise<string> {
  const { body } = await org.request("GET", "/billing/wallet");
  return Money.toBilling(Money.subtract(body.balance, spent));
}

/** Minus the sum of the ledger's charges created in [startAt, endAt), and how many there are (what usage must show). */
export async function ledgerChargesIn(org: TestOrganization, period: { startAt: string; endAt: string }) {
  const charges = (await allLedgerEntries(org)).filter(
    (entry) =>
      entry.entryType === "Charge" &&
      Date.parse(entry.createdAt as string) >= Date.parse(period.startAt) &&
      Date.parse(entry.createdAt as string) < Date.parse(period.endAt),
  );
  return {
    count: charges.length,
    amount: Money.toBilling(Money.negate(Money.sum(charges.map((entry) => entry.amount)))),
    charges,
  };
}
