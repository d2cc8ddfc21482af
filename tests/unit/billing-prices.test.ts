import { describe, expect, it } from "vitest";
import {
  billableSeconds,
  billingMonth,
  callCost,
  callReservation,
  DEFAULT_PRICES,
  fromUnits,
  messageCost,
  phoneNumberFee,
  toUnits,
  type PriceList,
} from "#core/billing/prices";

const perSecond: PriceList = { ...DEFAULT_PRICES, callRounding: "PerSecond" };

describe("billing prices", () => {
  it("converts amounts to integer units of 0.0001 and back exactly", () => {
    expect(toUnits("5")).toBe(50_000);
    expect(toUnits("0.0079")).toBe(79);
    expect(toUnits("-0.01")).toBe(-100);
    expect(toUnits("1.00005")).toBe(10_001);
    expect(fromUnits(79)).toBe("0.0079");
    expect(fromUnits(-100)).toBe("-0.0100");
    expect(fromUnits(0)).toBe("0.0000");
  });

  it.each([
    ["", 1, "0.0100"],
    ["hello", 1, "0.0100"],
    ["a".repeat(160), 1, "0.0100"],
    ["a".repeat(161), 2, "0.0200"],
    ["a".repeat(306), 2, "0.0200"],
    ["a".repeat(307), 3, "0.0300"],
    ["é".repeat(160), 1, "0.0100"],
    ["€".repeat(80), 1, "0.0100"],
    ["€".repeat(81), 2, "0.0200"],
    ["ł".repeat(70), 1, "0.0100"],
    ["ł".repeat(71), 2, "0.0200"],
    ["ł".repeat(134), 2, "0.0200"],
    ["ł".repeat(135), 3, "0.0300"],
    ["😀".repeat(35), 1, "0.0100"],
    ["😀".repeat(36), 2, "0.0200"],
  ])("prices an SMS body of %j characters as %i segment(s)", (body, segments, amount) => {
    expect(messageCost(DEFAULT_PRICES, { kind: "sms", body })).toEqual({ amount, segments });
  });

  it("prices an MMS flat, whatever its text", () => {
    expect(messageCost(DEFAULT_PRICES, { kind: "mms", body: "x".repeat(1000) })).toEqual({
      amount: "0.0300",
      segments: 1,
    });
  });

  it("rounds call time up to started minutes by default", () => {
    expect(callCost(DEFAULT_PRICES, 0)).toEqual({ amount: "0.0000", billableSeconds: 0 });
    expect(callCost(DEFAULT_PRICES, 1)).toEqual({ amount: "0.0200", billableSeconds: 60 });
    expect(callCost(DEFAULT_PRICES, 60)).toEqual({ amount: "0.0200", billableSeconds: 60 });
    expect(callCost(DEFAULT_PRICES, 61)).toEqual({ amount: "0.0400", billableSeconds: 120 });
    expect(callCost(DEFAULT_PRICES, 125)).toEqual({ amount: "0.0600", billableSeconds: 180 });
  });

  it("rates per second when the price list says so, rounding the amount up to 0.0001", () => {
    expect(billableSeconds(perSecond, 42.2)).toBe(43);
    expect(callCost(perSecond, 42)).toEqual({ amount: "0.0140", billableSeconds: 42 });
    expect(callCost(perSecond, 1)).toEqual({ amount: "0.0004", billableSeconds: 1 });
  });

  it("reserves the longest allowed call", () => {
    expect(callReservation(DEFAULT_PRICES)).toBe("0.6000");
  });

  it.each([
    ["2026-03", "2026-02-10T12:00:00.000Z", "1.1500", 31],
    ["2026-03", "2026-03-01T00:00:00.000Z", "1.1500", 31],
    ["2026-03", "2026-03-21T23:59:59.999Z", "0.4081", 11],
    ["2026-03", "2026-03-31T08:00:00.000Z", "0.0371", 1],
    ["2026-04", "2026-04-16T08:00:00.000Z", "0.5750", 15],
    ["2028-02", "2028-02-15T08:00:00.000Z", "0.5948", 15],
  ])(
    "charges a number's month %s (added %s) %s for %i day(s), prorated half-up in the month it was added",
    (month, addedAt, amount, days) => {
      expect(phoneNumberFee(DEFAULT_PRICES, month, addedAt)).toMatchObject({ amount, days });
    },
  );

  it("bills by UTC calendar month", () => {
    expect(billingMonth(new Date("2026-03-31T23:59:59.999Z"))).toBe("2026-03");
    expect(billingMonth(new Date("2026-04-01T00:00:00.000Z"))).toBe("2026-04");
  });
});
