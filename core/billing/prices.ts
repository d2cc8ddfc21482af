import * as v from "valibot";
import { countSegments } from "#core/shared/segments";
import * as Money from "#core/shared/money";

/**
 * Price lists and cost rules, pure. Amounts are decimal strings at the billing
 * scale (4 decimals, core/shared/money.ts); storage counts them in integer
 * units of 0.0001 so DynamoDB adds them exactly.
 */

/** How call time is rated: every started minute, or to the second (minute rate / 60, rounded up to 0.0001). */
export const callRoundings = ["PerStartedMinute", "PerSecond"] as const;
export type CallRounding = (typeof callRoundings)[number];

export const PriceListSchema = v.object({
  currency: v.string(),
  /** One SMS segment (GSM-7 160/153, UCS-2 70/67 characters). */
  smsSegment: v.string(),
  /** One MMS message, whatever its size. */
  mmsMessage: v.string(),
  /** One minute of an outbound call. */
  callMinute: v.string(),
  callRounding: v.picklist(callRoundings),
  /** Longest outbound call: its cost is what a call reserves, and the provider ends the call there. */
  maxCallMinutes: v.number(),
  /** One phone number for one month. */
  phoneNumberMonthly: v.string(),
});
export type PriceList = v.InferOutput<typeof PriceListSchema>;

const price = v.pipe(
  v.string('Must be a decimal amount such as "0.0100".'),
  v.regex(/^(?:0|[1-9]\d*)(?:\.\d{1,4})?$/, 'Must be a non-negative amount with at most 4 decimals, such as "0.0100".'),
  v.transform((amount) => Money.toBilling(amount)),
);

/** Operator overrides of some of an organization's prices (admin CLI `billing-prices`); the currency is the wallet's and stays. */
export const PriceOverridesSchema = v.strictObject({
  smsSegment: v.optional(price),
  mmsMessage: v.optional(price),
  callMinute: v.optional(price),
  callRounding: v.optional(v.picklist(callRoundings, `Must be one of: ${callRoundings.join(", ")}.`)),
  maxCallMinutes: v.optional(
    v.pipe(v.number(), v.integer("Must be a whole number of minutes."), v.minValue(1), v.maxValue(240)),
  ),
  phoneNumberMonthly: v.optional(price),
});
export type PriceOverrides = v.InferInput<typeof PriceOverridesSchema>;

/** The defaults every organization starts with (docs/decisions.md, "Calls and billing"). */
export const DEFAULT_PRICES: PriceList = {
  currency: "USD",
  smsSegment: "0.0100",
  mmsMessage: "0.0300",
  callMinute: "0.0200",
  callRounding: "PerStartedMinute",
  maxCallMinutes: 30,
  phoneNumberMonthly: "1.1500",
};

/** Credit a new organization's wallet opens with, so it can try the service; env BILLING_TRIAL_CREDIT overrides. */
export const DEFAULT_TRIAL_CREDIT = "5.0000";
/** Below this available balance the wallet reports `Low`. */
export const DEFAULT_LOW_BALANCE_THRESHOLD = "1.0000";
/**
 * The floor: the available balance (balance − reserved) never goes below it. A
 * reservation is refused unless available − estimate ≥ floor, and a settlement
 * never charges more than was reserved, so the balance never goes below it either.
 * The one exception: a phone number's monthly fee is owed and taken in full (core/billing/number-fees.ts).
 */
export const BALANCE_FLOOR = "0.0000";

const UNITS_PER_CURRENCY_UNIT = 10_000n;

/** A decimal amount in integer units of 0.0001 (rounded half-up beyond 4 decimals). */
export function toUnits(amount: string): number {
  const [whole = "0", fraction = ""] = Money.toBilling(amount).replace("-", "").split(".");
  const units = BigInt(whole) * UNITS_PER_CURRENCY_UNIT + BigInt(fraction);
  const signed = amount.trim().startsWith("-") ? -units : units;
  if (signed > BigInt(Number.MAX_SAFE_INTEGER) || signed < BigInt(Number.MIN_SAFE_INTEGER)) {
    throw new RangeError(`Amount out of range: ${amount}`);
  }
  return Number(signed);
}

/** Integer units of 0.0001 as a decimal string with 4 decimals. */
export function fromUnits(units: number): string {
  return Money.divide(String(units), 10_000, 4);
}

export type MessageKind = "sms" | "mms";

/** Cost of one outbound message: segments × segment rate for SMS, the flat MMS rate for MMS. */
export function messageCost(
  prices: PriceList,
  input: { kind: MessageKind; body?: string | undefined; segments?: number },
): {
  amount: string;
  segments: number;
} {
  if (input.kind === "mms") return { amount: Money.toBilling(prices.mmsMessage), segments: 1 };
  const segments = input.segments ?? Math.max(1, countSegments(input.body ?? "").segments);
  return { amount: Money.toBilling(Money.multiply(prices.smsSegment, segments)), segments };
}

/** Billable seconds of a call's talk time under the rounding rule (a started minute counts whole). */
export function billableSeconds(prices: PriceList, durationSeconds: number): number {
  const seconds = Math.max(0, Math.ceil(durationSeconds));
  return prices.callRounding === "PerStartedMinute" ? Math.ceil(seconds / 60) * 60 : seconds;
}

/** Cost of a call of `durationSeconds` talk time. */
export function callCost(prices: PriceList, durationSeconds: number): { amount: string; billableSeconds: number } {
  const seconds = billableSeconds(prices, durationSeconds);
  const amount =
    prices.callRounding === "PerStartedMinute"
      ? Money.multiply(prices.callMinute, seconds / 60)
      : Money.divide(Money.multiply(prices.callMinute, seconds), 60, 4, "up");
  return { amount: Money.toBilling(amount), billableSeconds: seconds };
}

/** What an outbound call holds while it runs: its longest allowed length. */
export function callReservation(prices: PriceList): string {
  return Money.toBilling(Money.multiply(prices.callMinute, prices.maxCallMinutes));
}

/** The billing month of an instant: its UTC calendar month, `2026-03`. */
export function billingMonth(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The instant a billing month starts (UTC). */
export function monthStart(month: string): Date {
  return new Date(`${month}-01T00:00:00.000Z`);
}

/**
 * One phone number's fee for one billing month: the monthly price, or for a
 * number added during that month the days from the day it was added (counted
 * whole) to the month's end, `monthly × days ÷ daysInMonth` rounded half-up to 0.0001.
 */
export function phoneNumberFee(
  prices: PriceList,
  month: string,
  addedAt: string,
): { amount: string; days: number; daysInMonth: number } {
  const start = monthStart(month);
  const daysInMonth = new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0)).getUTCDate();
  const firstDay = billingMonth(new Date(addedAt)) === month ? new Date(addedAt).getUTCDate() : 1;
  const days = daysInMonth - firstDay + 1;
  const amount =
    days === daysInMonth
      ? prices.phoneNumberMonthly
      : Money.divide(Money.multiply(prices.phoneNumberMonthly, days), daysInMonth, 4);
  return { amount: Money.toBilling(amount), days, daysInMonth };
}
