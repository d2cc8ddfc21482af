import type { Actor } from "#core/auth/actor";
import { ledgerResource } from "#core/billing/ledger";
import type { LedgerEntry } from "#core/billing/schemas";
import {
  backfillUsage,
  resolveUsagePeriod,
  usageItems,
  usageOf,
  type Usage,
  type UsageQuery,
} from "#core/billing/usage";
import { storedWallet } from "#core/billing/wallet-store";
import { listPage } from "#core/db/list";
import type { Page, PagingQuery } from "#core/shared/paging";

/**
 * The wallet's history: its ledger listed, its usage by kind, and the usage backfill. Apart from `Billing` (every
 * function that charges or checks the wallet uses that object, and an object brings all its verbs into a bundle), so
 * only the billing routes and the operator's tool carry the listing and the usage report.
 */

/** `POST /billing/ledger/all/my`: every credit and charge, newest first by default. */
export async function ledger(actor: Actor, query: PagingQuery): Promise<Page<LedgerEntry>> {
  await storedWallet(actor.organizationId);
  return listPage(ledgerResource, actor.organizationId, query);
}

/**
 * `GET /billing/usage`: the period's charges by kind and their total, from the per-day usage counters each
 * charge adds to (at most 10 items a day read, however many charges; core/billing/usage.ts).
 */
export async function usage(actor: Actor, query: UsageQuery): Promise<Usage> {
  const period = resolveUsagePeriod(query);
  const [wallet, items] = await Promise.all([
    storedWallet(actor.organizationId),
    usageItems(actor.organizationId, period),
  ]);
  return usageOf(items, period, wallet.currency);
}

/** Counts into usage the organization's charges written before the usage counters existed (safe to run again). */
export { backfillUsage };
