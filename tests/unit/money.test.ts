import { describe, expect, it } from "vitest";
import * as v from "valibot";
import * as Money from "#core/shared/money";

describe("decimal parsing", () => {
  it.each(["0", "0.10", "12", "-3.5", "1234567890123456789012.000000001", "-0.00"])("accepts %s", (input) => {
    expect(Money.isDecimal(input)).toBe(true);
  });

  it.each(["", "01", "1.", ".5", "+1", "1e3", "1,5", " 1", "NaN", "--1", "0x10"])("rejects %j", (input) => {
    expect(Money.isDecimal(input)).toBe(false);
    expect(() => Money.normalize(input)).toThrow(Money.InvalidDecimalError);
  });

  it("keeps the written scale of a lead price", () => {
    expect(Money.normalize("0.10")).toBe("0.10");
    expect(Money.normalize("25")).toBe("25");
    expect(Money.normalize("-0.00")).toBe("0.00");
  });

  it("offers the same rule as a valibot schema", () => {
    expect(v.safeParse(Money.decimalString, "12.50").success).toBe(true);
    expect(v.safeParse(Money.decimalString, "12.").success).toBe(false);
  });
});

describe("arithmetic", () => {
  it.each([
    ["0.1", "0.2", "0.3"],
    ["0.10", "0.2", "0.30"],
    ["1", "0.0001", "1.0001"],
    ["-1.5", "0.5", "-1.0"],
    ["0.0075", "-0.0075", "0.0000"],
    ["99999999999999999999.99", "0.01", "100000000000000000000.00"],
  ])("%s + %s = %s", (a, b, expected) => {
    expect(Money.add(a, b)).toBe(expected);
  });

  it.each([
    ["10.00", "0.0079", "9.9921"],
    ["0", "0.01", "-0.01"],
    ["5", "5.000", "0.000"],
  ])("%s - %s = %s", (a, b, expected) => {
    expect(Money.subtract(a, b)).toBe(expected);
  });

  it.each([
    ["0.0079", 3, "0.0237"],
    ["0.0079", 0, "0.0000"],
    ["-0.5", 3, "-1.5"],
    ["0.013", 10n, "0.130"],
  ])("%s × %s = %s", (amount, factor, expected) => {
    expect(Money.multiply(amount, factor)).toBe(expected);
  });

  it("refuses a fractional or unsafe factor", () => {
    expect(() => Money.multiply("1.00", 1.5)).toThrow(RangeError);
    expect(() => Money.multiply("1.00", Number.MAX_SAFE_INTEGER + 1)).toThrow(RangeError);
  });

  it.each([
    ["0.0140", 60, 6, "halfUp", "0.000233"],
    ["0.0140", 60, 4, "up", "0.0003"],
    ["0.0140", 60, 4, "down", "0.0002"],
    ["1", 3, 4, "halfUp", "0.3333"],
    ["2", 3, 4, "halfUp", "0.6667"],
    ["-2", 3, 4, "halfUp", "-0.6667"],
    ["0.123456", 1, 4, "halfUp", "0.1235"],
  ] as const)("%s / %s at %s decimals (%s) = %s", (amount, divisor, scale, rounding, expected) => {
    expect(Money.divide(amount, divisor, scale, rounding)).toBe(expected);
  });

  it("never divides by zero", () => {
    expect(() => Money.divide("1", 0, 4)).toThrow(RangeError);
  });
});

describe("comparison and sums", () => {
  it.each([
    ["1.0", "1.00", 0],
    ["0.10", "0.09", 1],
    ["-0.01", "0", -1],
    ["-2", "-10", 1],
  ] as const)("compare(%s, %s) = %s", (a, b, expected) => {
    expect(Money.compare(a, b)).toBe(expected);
  });

  it("sums a ledger exactly where floats would drift", () => {
    const entries = Array.from({ length: 10 }, () => "0.1");
    expect(Money.sum(entries)).toBe("1.0");
    expect(Money.sum(entries, 4)).toBe("1.0000");
    expect(entries.reduce((total, entry) => total + Number(entry), 0)).not.toBe(1);
  });

  it("sums nothing to zero", () => {
    expect(Money.sum([])).toBe("0");
    expect(Money.sum([], 4)).toBe("0.0000");
  });

  it("reports sign and zero for any written form", () => {
    expect(Money.isNegative("-0.0001")).toBe(true);
    expect(Money.isNegative("-0.00")).toBe(false);
    expect(Money.isZero("0.000")).toBe(true);
    expect(Money.min("1.5", "1.50")).toBe("1.5");
    expect(Money.max("2", "10")).toBe("10");
  });
});

describe("fixed scale formatting", () => {
  it.each([
    ["0.1", 4, "halfUp", "0.1000"],
    ["0.00005", 4, "halfUp", "0.0001"],
    ["0.00005", 4, "halfEven", "0.0000"],
    ["0.00015", 4, "halfEven", "0.0002"],
    ["-0.00005", 4, "halfUp", "-0.0001"],
    ["0.00001", 4, "up", "0.0001"],
    ["0.00009", 4, "down", "0.0000"],
    ["12", 2, "halfUp", "12.00"],
    ["12.345", 0, "halfUp", "12"],
  ] as const)("%s at %s decimals (%s) is %s", (amount, scale, rounding, expected) => {
    expect(Money.toScale(amount, scale, rounding)).toBe(expected);
  });

  it("formats billing amounts with four decimals", () => {
    expect(Money.toBilling("0.0079")).toBe("0.0079");
    expect(Money.toBilling("3")).toBe("3.0000");
  });
});
