import { describe, expect, it } from "vitest";
import * as v from "valibot";
import type { Lead } from "#core/leads/schemas";
import { areaCodeState, areaCodeStates } from "#core/routing/area-codes";
import { leadState, matchesConditions } from "#core/routing/conditions";
import { RoutingConditionsSchema } from "#core/routing/schemas";
import { areaCodeTimeZone, regionTimeZone } from "#core/shared/phone";

function lead(overrides: { phone?: string; state?: string; metadata?: Record<string, unknown> } = {}): Lead {
  return {
    id: "01LEAD",
    sourceId: "src",
    contact: {
      phone: overrides.phone ? { number: overrides.phone, type: null, countryCode: "US" } : null,
      streetAddress: overrides.state ? { state: overrides.state } : null,
    },
    metadata: {
      price: null,
      utmSource: null,
      utmMedium: null,
      utmCampaign: null,
      vertical: null,
      product: null,
      ...overrides.metadata,
    },
  } as unknown as Lead;
}

const conditions = (input: unknown) => v.parse(RoutingConditionsSchema, input);

describe("routing conditions", () => {
  it("price: min and max both inclusive, compared exactly; a lead without a price matches no price condition", () => {
    const band = conditions({ price: { min: "10", max: "25.50" } });
    const at = (price: string | null) => matchesConditions(band, lead({ metadata: { price } }));
    expect([at("9.99"), at("10.00"), at("25.5"), at("25.500"), at("25.51"), at(null)]).toEqual([
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(matchesConditions(conditions({ price: { min: 40 } }), lead({ metadata: { price: "40" } }))).toBe(true);
    expect(matchesConditions(conditions({ price: { max: "5" } }), lead({ metadata: { price: "5.01" } }))).toBe(false);
  });

  it("UTM source, medium and campaign: any of the values, case-insensitively, and all given conditions at once", () => {
    const paid = conditions({ utmSources: ["Google"], utmMediums: ["cpc", "ppc"], utmCampaigns: ["spring"] });
    const utm = (utmSource: string | null, utmMedium: string | null, utmCampaign: string | null) =>
      matchesConditions(paid, lead({ metadata: { utmSource, utmMedium, utmCampaign } }));
    expect(utm("google", "PPC", "Spring")).toBe(true);
    expect(utm("bing", "cpc", "spring")).toBe(false);
    expect(utm("google", "email", "spring")).toBe(false);
    expect(utm("google", "cpc", null)).toBe(false);
  });

  it("states: the street address's state, else the state of the phone's US area code", () => {
    const florida = conditions({ states: ["FL"] });
    expect(leadState(lead({ phone: "+13055550123" }))).toBe("FL");
    expect(matchesConditions(florida, lead({ phone: "+13055550123" }))).toBe(true);
    // An address that says otherwise wins over the area code.
    expect(matchesConditions(florida, lead({ phone: "+13055550123", state: "ga" }))).toBe(false);
    expect(matchesConditions(florida, lead({ phone: "+12125550123" }))).toBe(false);
    // A Canadian or toll-free number, or none, gives no state.
    expect(leadState(lead({ phone: "+14165550123" }))).toBeUndefined();
    expect(leadState(lead({ phone: "+18005550123" }))).toBeUndefined();
    expect(leadState(lead())).toBeUndefined();
  });

  it("refuses a bad condition at its field: min above max, an empty price, a bad decimal", () => {
    const problems = (input: unknown) =>
      v.safeParse(RoutingConditionsSchema, input).issues?.map((issue) => ({
        path: v.getDotPath(issue),
        message: issue.message,
      }));
    expect(problems({ price: { min: "30", max: "20" } })).toEqual([
      { path: "price.max", message: "max must not be below min." },
    ]);
    expect(problems({ price: {} })).toEqual([{ path: "price", message: "Give min, max or both." }]);
    expect(problems({ price: { min: "ten" } })?.[0]?.path).toBe("price.min");
    expect(problems({ utmSources: [] })?.[0]?.path).toBe("utmSources");
  });
});

describe("area codes by state", () => {
  it("lists each area code under one state, and only area codes that the time-zone table knows as US ones", () => {
    const pairs = areaCodeStates();
    expect(new Set(pairs.map(([code]) => code)).size).toBe(pairs.length);
    const usZones = new Set(
      ["America/New_York", "America/Chicago", "America/Denver", "America/Boise", "America/Phoenix"].concat([
        "America/Los_Angeles",
        "America/Anchorage",
        "Pacific/Honolulu",
      ]),
    );
    for (const [code] of pairs) expect(usZones.has(areaCodeTimeZone(code) ?? ""), code).toBe(true);
  });

  it("agrees with the independent time-zone table: a code's zone is its state's, but for the known border areas", () => {
    const differing = areaCodeStates()
      .filter(([code, state]) => areaCodeTimeZone(code) !== regionTimeZone(state))
      .map(([code, state]) => `${code} ${state}`);
    // NW Indiana and W Kentucky keep Central time, E Tennessee Eastern, El Paso Mountain.
    expect(differing.sort()).toEqual(["219 IN", "270 KY", "364 KY", "423 TN", "865 TN", "915 TX"]);
    expect([areaCodeState("212"), areaCodeState("907"), areaCodeState("202"), areaCodeState("787")]).toEqual([
      "NY",
      "AK",
      "DC",
      undefined,
    ]);
  });
});
