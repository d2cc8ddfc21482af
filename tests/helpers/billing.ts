import { randomUUID } from "node:crypto";
import { Billing } from "#core/billing/index";
import * as Money from "#core/shared/money";
import { applyStackEnv, type TestOrganization } from "#tests/helpers/stack";

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

/** `POST /billing/wallet/top-ups` with a fresh Idempotency-Key unless one is given. */
export function topUp(org: TestOrganization, amount: string, idempotencyKey: string = randomUUID()) {
  return org.request("POST", "/billing/wallet/top-ups", { body: { amount }, headers: { "idempotency-key": idempotencyKey } });
}

/** Every ledger entry, following continuation tokens. */
export async function allLedgerEntries(org: TestOrganization, pageSize = 200): Promise<{ amount: string; entryType: string; [field: string]: unknown }[]> {
  const entries = [];
  let continuationToken: string | null = null;
  do {
    const page: { status: number; body: any } = await org.request("POST", "/billing/ledger/all/my", { body: { pageSize, continuationToken } });
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
