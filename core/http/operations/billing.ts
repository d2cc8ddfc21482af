import {
  LedgerEntrySchema,
  ListLedgerSchema,
  UsageQuerySchema,
  UsageSchema,
  WalletSchema,
  WalletSettingsSchema,
} from "#core/billing/index";
import { StartTopUpSchema, TopUpSchema } from "#core/billing/payments";
import { routedBy } from "#core/http/operation";
import { billingRoutes } from "#stacks/definitions";
import * as v from "valibot";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(billingRoutes);

// Schemas declared apart from the operations: a call in an operation's arguments is kept by the bundler as an effect
// where the operation is unused, and with it every schema beside it.
const TopUpIdParams = v.object({ topUpId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
const StripeWebhookAnswerSchema = v.object({
  received: v.boolean(),
  outcome: v.picklist(["credited", "recorded", "ignored"]),
});

export const getWallet = /* @__PURE__ */ defineOperation({
  operationId: "getWallet",
  summary: "Read the organization's prepaid wallet: balance, reserved and available amounts, status, prices",
  description:
    "Amounts are decimal strings with 4 decimals. `status` is `Active`, `Low` (available below `lowBalanceThreshold`), `Empty` (nothing available) or `Suspended`; Empty and Suspended wallets refuse new sends and calls with 402.",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:read",
  success: { status: 200, description: "The wallet", schema: WalletSchema },
  problems: [401, 403, 429],
});

export const updateWallet = /* @__PURE__ */ defineOperation({
  operationId: "updateWallet",
  summary: "Set the wallet's low-balance threshold",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:write",
  body: WalletSettingsSchema,
  success: { status: 200, description: "The wallet", schema: WalletSchema },
  problems: [400, 401, 403, 413, 415, 429],
  example: { lowBalanceThreshold: "10.00" },
});

export const topUpWallet = /* @__PURE__ */ defineOperation({
  operationId: "topUpWallet",
  summary: "Start a wallet top-up: a card payment page (Idempotency-Key required)",
  description:
    "Creates a pending top-up and its payment at the payment provider (a Stripe Checkout Session): send the payer to `checkoutUrl`. " +
    "**Nothing is credited by this request**: the wallet is credited once, with a `TopUp` ledger entry, when the provider's signed payment event arrives " +
    "(`GET /billing/wallet/top-ups/{topUpId}` then shows `Succeeded`). Refunds and disputes later reported by the provider are negative ledger entries; " +
    "an open dispute, or a refund that leaves the available balance below zero, suspends the wallet until it is resolved. " +
    "Send a unique `Idempotency-Key` header (a UUID): a retry with the same key and body is answered with the first answer; the same key with another body is a 422. " +
    "502 when the payment provider cannot be reached or is not configured on this stage (nothing is charged).",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:write",
  body: StartTopUpSchema,
  idempotent: true,
  success: {
    status: 201,
    description: "The pending top-up, with the payment page to send the payer to",
    schema: TopUpSchema,
  },
  problems: [400, 401, 403, 409, 413, 415, 422, 429, 502],
  example: { amount: "25.00", successUrl: "https://example.com/billing/thanks" },
});

export const getTopUp = /* @__PURE__ */ defineOperation({
  operationId: "getTopUp",
  summary: "Read one top-up: Pending until paid, then Succeeded (credited), Refunded, Expired or Failed",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:read",
  params: TopUpIdParams,
  success: { status: 200, description: "The top-up", schema: TopUpSchema },
  problems: [401, 403, 404, 429],
});

export const stripePaymentWebhook = /* @__PURE__ */ defineOperation({
  operationId: "stripePaymentWebhook",
  summary: "Stripe payment events: top-ups paid, refunds, disputes",
  description:
    "Called by Stripe with the events `checkout.session.completed`, `checkout.session.async_payment_succeeded`, `checkout.session.expired`, " +
    "`payment_intent.succeeded`, `charge.refunded`, `charge.dispute.created` and `charge.dispute.closed`, verified with the endpoint's signing secret " +
    "(`Stripe-Signature`, 5-minute tolerance); an unverified request is refused with 400 and changes nothing. Each event changes the wallet at most once, " +
    "in any order and however often it is delivered; other event types, and payments this API did not start, are acknowledged and ignored.",
  tag: "Webhooks",
  auth: "public",
  success: {
    status: 200,
    description: "Acknowledged",
    schema: StripeWebhookAnswerSchema,
  },
  problems: [400, 429],
});

export const listLedger = /* @__PURE__ */ defineOperation({
  operationId: "listLedger",
  summary: "List the wallet's ledger: every credit and charge with its reason and the message or call it is for",
  description: "Newest first by default. The balance equals the sum of every entry's `amount`.",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:read",
  body: ListLedgerSchema,
  success: {
    status: 200,
    description: "A page of ledger entries",
    schema: /* @__PURE__ */ pageSchema(LedgerEntrySchema),
  },
  problems: [400, 401, 403, 413, 415, 429],
  example: { pageSize: 50, filters: [{ field: "entryType", value: "Charge" }] },
});

export const getUsage = /* @__PURE__ */ defineOperation({
  operationId: "getUsage",
  summary:
    "What the organization was charged over a period, by kind (SMS, MMS, call minutes, phone numbers …), and the total",
  description:
    "`from` and `to` are UTC calendar days (`2026-11-01`), both inclusive. Without either, the current UTC month; with one, " +
    "that day's month supplies the other. A bad date, `to` before `from`, or more than 366 days is a 400 naming the parameter. " +
    "One entry per charge kind (`kind` is the ledger `reason`: filter `POST /billing/ledger/all/my` by it to list the charges), " +
    "in a fixed order and zero when unused: `count` charges, `quantity` in `unit` (SMS segments, MMS messages, billed call " +
    "seconds, days of phone number months), `amount` charged as a positive decimal string with 4 decimals. " +
    "`total.amount` equals minus the sum of the `Charge` ledger entries created in [`startAt`, `endAt`) " +
    "(on a stage deployed before this report existed, once its operator has run the usage backfill).",
  tag: "Billing",
  auth: "bearer",
  permission: "billing:read",
  query: UsageQuerySchema,
  success: { status: 200, description: "The period's usage by kind", schema: UsageSchema },
  problems: [400, 401, 403, 429],
});
