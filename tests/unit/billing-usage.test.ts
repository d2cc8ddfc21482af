import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { resolveUsagePeriod, UsageQuerySchema, usageOf } from "#core/billing/usage";
import { ValidationError } from "#core/errors";

const now = Date.parse("2024-02-17T23:59:59Z");

/** The field a refused period names. */
function refusedField(query: { from?: string; to?: string }): string | undefined {
  try {
    resolveUsagePeriod(query, now);
  } catch (error) {
    if (error instanceof ValidationError) return (error.errors[0] as { field?: string }).field;
    throw error;
  }
  return undefined;
}

describe("usage period", () => {
  it("is the current UTC month by default, and one bound's month when only one is given", () => {
    expect(resolveUsagePeriod({}, now)).toEqual({ from: "2024-02-01", to: "2024-02-29" });
    expect(resolveUsagePeriod({ from: "2023-12-05" }, now)).toEqual({ from: "2023-12-05", to: "2023-12-31" });
    expect(resolveUsagePeriod({ to: "2023-11-10" }, now)).toEqual({ from: "2023-11-01", to: "2023-11-10" });
    expect(resolveUsagePeriod({ from: "2024-02-17", to: "2024-02-17" }, now)).toEqual({
      from: "2024-02-17",
      to: "2024-02-17",
    });
  });

  it("takes a leap year's 366 days, and refuses a 367th or an end before the start, naming to", () => {
    expect(resolveUsagePeriod({ from: "2024-01-01", to: "2024-12-31" }, now)).toEqual({
      from: "2024-01-01",
      to: "2024-12-31",
    });
    expect(refusedField({ from: "2024-01-01", to: "2025-01-01" })).toBe("to");
    expect(refusedField({ from: "2024-02-02", to: "2024-02-01" })).toBe("to");
  });

  it("accepts only real calendar days", () => {
    const valid = (value: string) => v.safeParse(UsageQuerySchema, { from: value }).success;
    expect(valid("2024-02-29")).toBe(true);
    expect(
      ["2023-02-29", "2024-02-30", "2024-13-01", "2024-2-1", "2024-02-01T00:00:00Z", "yesterday"].map(valid),
    ).toEqual([false, false, false, false, false, false]);
  });
});

describe("usage by kind", () => {
  it("sums every day and wallet part per kind, lists unused kinds as zero and any other reason after them", () => {
    const items = [
      { sk: "USAGE#2024-02-01#W", "count#SmsSegments": 2, "quantity#SmsSegments": 3, "units#SmsSegments": 300 },
      { sk: "USAGE#2024-02-01#3", "count#SmsSegments": 1, "quantity#SmsSegments": 1, "units#SmsSegments": 100 },
      {
        sk: "USAGE#2024-02-02#W",
        "count#PhoneNumberMonthly": 1,
        "quantity#PhoneNumberMonthly": 29,
        "units#PhoneNumberMonthly": 11_500,
        "count#Porting": 1,
        "quantity#Porting": 1,
        "units#Porting": 25_000,
      },
    ];
    const usage = usageOf(items, { from: "2024-02-01", to: "2024-02-29" }, "USD");
    expect(usage).toMatchObject({
      from: "2024-02-01",
      to: "2024-02-29",
      startAt: "2024-02-01T00:00:00.000Z",
      endAt: "2024-03-01T00:00:00.000Z",
      currency: "USD",
      total: { count: 5, amount: "3.6900" },
    });
    expect(usage.kinds).toEqual([
      { kind: "SmsSegments", count: 3, quantity: 4, unit: "segments", amount: "0.0400" },
      { kind: "MmsMessage", count: 0, quantity: 0, unit: "messages", amount: "0.0000" },
      { kind: "CallMinutes", count: 0, quantity: 0, unit: "seconds", amount: "0.0000" },
      { kind: "CallForwarded", count: 0, quantity: 0, unit: "seconds", amount: "0.0000" },
      { kind: "PhoneNumberMonthly", count: 1, quantity: 29, unit: "days", amount: "1.1500" },
      { kind: "Porting", count: 1, quantity: 1, unit: "units", amount: "2.5000" },
    ]);
  });
});
