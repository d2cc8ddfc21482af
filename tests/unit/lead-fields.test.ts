import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { checkSourceMetadata, toIsoDate } from "#core/leads/fields";
import { IntakeBodySchema, IntakeQuerySchema, LeadWriteSchema } from "#core/leads/schemas";
import { ipAllowed, parseIpRange } from "#core/sources/index";

describe("lead dates", () => {
  it("accepts real dates in ISO or US order and answers YYYY-MM-DD", () => {
    expect(toIsoDate("1990-12-10")).toBe("1990-12-10");
    expect(toIsoDate("2/29/2000")).toBe("2000-02-29");
  });
  it("refuses impossible, future, pre-1900 and other written forms", () => {
    const today = new Date("2025-06-01T00:00:00Z");
    for (const bad of ["2023-02-29", "1990-13-01", "1899-12-31", "2025-06-02", "10.12.1990", "1990-1-1", "19901210"]) {
      expect(toIsoDate(bad, today), bad).toBeUndefined();
    }
  });
});

describe("SourceMetadata safety rule", () => {
  it("keeps scalar values under safe keys, from an object or its JSON text", () => {
    expect(checkSourceMetadata({ campaign: "spring", clicks: 3, organic: false, note: null })).toEqual({
      metadata: { campaign: "spring", clicks: 3, organic: false, note: null },
      errors: [],
    });
    expect(checkSourceMetadata('{"a":"b"}').metadata).toEqual({ a: "b" });
  });
  it("names each unsafe key: markup, credentials, nesting, long values, bad keys", () => {
    const { metadata, errors } = checkSourceMetadata({
      html: "<b>x</b>",
      api_key: "k",
      creditCardNumber: "4111",
      nested: { a: 1 },
      list: [1],
      long: "x".repeat(501),
      "has space": "x",
      fine: "ok",
    });
    expect(metadata).toBeUndefined();
    expect(errors.map((error) => error.pointer).sort()).toEqual([
      "/api_key",
      "/creditCardNumber",
      "/has space",
      "/html",
      "/list",
      "/long",
      "/nested",
    ]);
  });
  it("refuses more than 20 keys and values that are not objects", () => {
    expect(
      checkSourceMetadata(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]))).errors[0]?.pointer,
    ).toBe("");
    expect(checkSourceMetadata("[1,2]").errors).toHaveLength(1);
    expect(checkSourceMetadata("not json").errors).toHaveLength(1);
  });
});

describe("flat intake parameters", () => {
  it("map to the lead's shape with aliases and bracketed metadata", () => {
    const lead = v.parse(IntakeQuerySchema, {
      FirstName: " Ada ",
      Phone: "201.555.0123",
      BirthDate: "1990-12-10",
      PostalCode: "07030",
      SellerLeadIdentifier: "S-1",
      "SourceMetadata[campaign]": "spring",
      Price: "0.10",
      sourceId: "src",
      apiKey: "key",
    });
    expect(lead).toMatchObject({
      contact: { firstName: "Ada", phone: { number: "+12015550123" }, streetAddress: { postalCode: "07030" } },
      customer: { birthDate: "1990-12-10" },
      metadata: { sellerLeadId: "S-1", price: "0.10", sourceMetadata: { campaign: "spring" } },
    });
  });
  it("accept both names of an alias when they agree, and refuse them when they differ", () => {
    expect(v.safeParse(IntakeBodySchema, { Zip: "07030", PostalCode: "07030" }).success).toBe(true);
    const result = v.safeParse(IntakeBodySchema, { Zip: "07030", PostalCode: "10001" });
    expect(result.success).toBe(false);
  });
  it("refuse credentials in the JSON body (they go in the query or headers)", () => {
    expect(v.safeParse(IntakeBodySchema, { apiKey: "x" }).success).toBe(false);
  });
});

describe("the lead's writable shape", () => {
  it("normalises enumerations given in any case", () => {
    const lead = v.parse(LeadWriteSchema, {
      contact: { phone: { number: "+44 20 7946 0958", type: "CELL" } },
      customer: { gender: { value: "F" } },
    });
    expect(lead.contact.phone).toEqual({ number: "+442079460958", type: "Mobile" });
    expect(lead.customer.gender).toEqual({ value: "Female" });
  });
});

describe("allowed source addresses", () => {
  it("match single addresses and CIDR ranges of both families", () => {
    expect(parseIpRange("203.0.113.0/24")).toEqual({ address: "203.0.113.0", prefix: 24, family: "ipv4" });
    expect(parseIpRange("300.0.0.1")).toBeUndefined();
    expect(parseIpRange("10.0.0.0/33")).toBeUndefined();
    expect(ipAllowed(["203.0.113.0/24", "2001:db8::/32"], "203.0.113.77")).toBe(true);
    expect(ipAllowed(["203.0.113.0/24"], "203.0.114.1")).toBe(false);
    expect(ipAllowed(["2001:db8::/32"], "2001:db8::1")).toBe(true);
    expect(ipAllowed(["198.51.100.7"], "198.51.100.7")).toBe(true);
  });
});
