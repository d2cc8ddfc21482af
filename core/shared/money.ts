import * as v from "valibot";

/**
 * Exact decimal amounts carried as strings ("0.10" stays "0.10"), computed on
 * scaled BigInt so no binary float ever touches a price, a charge or a balance.
 */

/** The decimal form accepted at the edge (lead prices, rates, amounts). */
export const DECIMAL_PATTERN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;

/** Scale used for billing amounts (ledger entries, balances, charges). */
export const BILLING_SCALE = 4;

/** Valibot schema for a decimal string, shared by operation schemas. */
export const decimalString = v.pipe(v.string(), v.regex(DECIMAL_PATTERN, "Expected a decimal number such as 12.50"));

/** How to drop digits when an amount is brought to a smaller scale. */
export type Rounding = "halfUp" | "halfEven" | "up" | "down";

/** Raised when a string is not a decimal in the accepted form. */
export class InvalidDecimalError extends Error {
  readonly code = "InvalidDecimal";
  constructor(readonly input: string) {
    super(`Not a decimal amount: ${JSON.stringify(input)}`);
    this.name = "InvalidDecimalError";
  }
}

type Scaled = { units: bigint; scale: number };

/** True when `input` matches DECIMAL_PATTERN. */
export function isDecimal(input: string): boolean {
  return DECIMAL_PATTERN.test(input);
}

function parse(input: string): Scaled {
  if (!DECIMAL_PATTERN.test(input)) throw new InvalidDecimalError(input);
  const negative = input.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? input.slice(1) : input).split(".");
  const units = BigInt(whole + fraction);
  return { units: negative ? -units : units, scale: fraction.length };
}

function rescale(value: Scaled, scale: number): bigint {
  return value.units * 10n ** BigInt(scale - value.scale);
}

function render({ units, scale }: Scaled): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  const text = scale === 0 ? whole : `${whole}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}

function divideRounded(numerator: bigint, divisor: bigint, rounding: Rounding): bigint {
  if (divisor === 0n) throw new RangeError("Division by zero");
  if (divisor < 0n) return divideRounded(-numerator, -divisor, rounding);
  const quotient = numerator / divisor; // truncates toward zero
  const remainder = numerator % divisor;
  if (remainder === 0n) return quotient;
  const sign = numerator < 0n ? -1n : 1n;
  const twice = (remainder < 0n ? -remainder : remainder) * 2n;
  const away = quotient + sign;
  switch (rounding) {
    case "down":
      return quotient;
    case "up":
      return away;
    case "halfUp":
      return twice >= divisor ? away : quotient;
    case "halfEven":
      if (twice === divisor) return quotient % 2n === 0n ? quotient : away;
      return twice > divisor ? away : quotient;
  }
}

/** Normalises the written form: same value, same scale ("-0.00" → "0.00"). */
export function normalize(amount: string): string {
  return render(parse(amount));
}

/** Exact sum; the result keeps the larger scale of the two ("0.10" + "0.2" = "0.30"). */
export function add(a: string, b: string): string {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  return render({ units: rescale(x, scale) + rescale(y, scale), scale });
}

/** Exact difference `a - b`, with the larger scale of the two. */
export function subtract(a: string, b: string): string {
  return add(a, negate(b));
}

/** `-amount`, keeping the scale. */
export function negate(amount: string): string {
  const x = parse(amount);
  return render({ units: -x.units, scale: x.scale });
}

/** Exact product with a whole number (segments × rate, minutes × rate). */
export function multiply(amount: string, factor: number | bigint): string {
  if (typeof factor === "number" && !Number.isSafeInteger(factor)) {
    throw new RangeError(`Factor must be a safe integer, got ${factor}`);
  }
  const x = parse(amount);
  return render({ units: x.units * BigInt(factor), scale: x.scale });
}

/** `amount / divisor` at `scale` decimals, rounded as asked (per-second call rating). */
export function divide(amount: string, divisor: number | bigint, scale: number, rounding: Rounding = "halfUp"): string {
  if (typeof divisor === "number" && !Number.isSafeInteger(divisor)) {
    throw new RangeError(`Divisor must be a safe integer, got ${divisor}`);
  }
  const x = parse(amount);
  const numerator = x.scale <= scale ? rescale(x, scale) : x.units;
  const extra = x.scale <= scale ? 1n : 10n ** BigInt(x.scale - scale);
  return render({ units: divideRounded(numerator, BigInt(divisor) * extra, rounding), scale });
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b` ("1.0" equals "1.00"). */
export function compare(a: string, b: string): -1 | 0 | 1 {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  const left = rescale(x, scale);
  const right = rescale(y, scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Exact sum of a list; "0" (or zero at `scale`) for an empty list. */
export function sum(amounts: Iterable<string>, scale?: number): string {
  let total = scale === undefined ? "0" : toScale("0", scale);
  for (const amount of amounts) total = add(total, amount);
  return scale === undefined ? total : toScale(total, scale);
}

/** Brings an amount to exactly `scale` decimals: pads, or rounds as asked. */
export function toScale(amount: string, scale: number, rounding: Rounding = "halfUp"): string {
  if (!Number.isSafeInteger(scale) || scale < 0) throw new RangeError(`Invalid scale ${scale}`);
  const x = parse(amount);
  if (scale >= x.scale) return render({ units: rescale(x, scale), scale });
  const divisor = 10n ** BigInt(x.scale - scale);
  return render({ units: divideRounded(x.units, divisor, rounding), scale });
}

/** Formats a billing amount with the fixed billing scale (4 decimals). */
export function toBilling(amount: string, rounding: Rounding = "halfUp"): string {
  return toScale(amount, BILLING_SCALE, rounding);
}

/** True for amounts below zero. */
export function isNegative(amount: string): boolean {
  return parse(amount).units < 0n;
}

/** True for any written form of zero ("0", "0.000", "-0"). */
export function isZero(amount: string): boolean {
  return parse(amount).units === 0n;
}

/** The smaller of two amounts (the first when equal). */
export function min(a: string, b: string): string {
  return compare(a, b) <= 0 ? a : b;
}

/** The larger of two amounts (the first when equal). */
export function max(a: string, b: string): string {
  return compare(a, b) >= 0 ? a : b;
}
