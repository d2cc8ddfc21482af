import {
  LedgerEntrySchema,
  ListLedgerSchema,
  TopUpRequestSchema,
  TopUpSchema,
  WalletSchema,
  WalletSettingsSchema,
} from "#core/billing/index";
import { defineOperation } from "#core/http/operation";
import { pageSchema } from "#core/shared/paging";

export const getWallet = defineOperation({
  operationId: "getWallet",
  method: "GET",
  path: "/billing/wallet",
  summary: "Read the organization's prepaid wallet: balance, reserved and available amounts, status, prices",
  description:
    "Amounts are decimal strings with 4 decimals. `status` is `Active`, `Low` (available below `lowBalanceThreshold`), `Empty` (nothing available) or `Suspended`; Empty and Suspended wallets refuse new sends and calls with 402.",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:read",
  success: { status: 200, description: "The wallet", schema: WalletSchema },
  problems: [401, 403, 429],
});

export const updateWallet = defineOperation({
  operationId: "updateWallet",
  method: "PUT",
  path: "/billing/wallet",
  summary: "Set the wallet's low-balance threshold",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:write",
  body: WalletSettingsSchema,
  success: { status: 200, description: "The wallet", schema: WalletSchema },
  problems: [400, 401, 403, 413, 415, 429],
  example: { lowBalanceThreshold: "10.00" },
});

export const topUpWallet = defineOperation({
  operationId: "topUpWallet",
  method: "POST",
  path: "/billing/wallet/top-ups",
  summary: "Credit the wallet (Idempotency-Key required)",
  description:
    "Send a unique `Idempotency-Key` header (a UUID): a retry with the same key and body is answered with the first answer and credits nothing more; the same key with another body is a 422. Without the header the request is a 400.",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:write",
  body: TopUpRequestSchema,
  idempotent: true,
  success: { status: 201, description: "The ledger entry of the credit and the wallet after it", schema: TopUpSchema },
  problems: [400, 401, 403, 409, 413, 415, 422, 429],
  example: { amount: "25.00", description: "Card payment", reference: "ch_3PZ0" },
});

export const listLedger = defineOperation({
  operationId: "listLedger",
  method: "POST",
  path: "/billing/ledger/all/my",
  summary: "List the wallet's ledger: every credit and charge with its reason and the message or call it is for",
  description: "Newest first by default. The balance equals the sum of every entry's `amount`.",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:read",
  body: ListLedgerSchema,
  success: { status: 200, description: "A page of ledger entries", schema: pageSchema(LedgerEntrySchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: { pageSize: 50, filters: [{ field: "entryType", value: "Charge" }] },
});
