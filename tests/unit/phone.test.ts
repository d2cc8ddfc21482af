import { describe, expect, it } from "vitest";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import {
  areaCodeTimeZone,
  decodePhoneInput,
  isValidPhone,
  knownAreaCodes,
  parsePhone,
  recipientTimeZone,
  regionTimeZone,
  toE164,
} from "#core/shared/phone";

describe("E.164 normalisation", () => {
  it.each([
    ["(201) 555-0100", "+12015550100"],
    ["201-555-0100", "+12015550100"],
    ["2015550100", "+12015550100"],
    ["12015550100", "+12015550100"],
    ["+1 201 555 0100", "+12015550100"],
    ["%2B12015550100", "+12015550100"],
    ["%2b1%20201%20555%200100", "+12015550100"],
    [" 12015550100", "+12015550100"],
    [" 442079460958", "+442079460958"],
    ["+44 20 7946 0958", "+442079460958"],
    ["  +1 (416) 555-0100 ", "+14165550100"],
  ])("%j → %s", (input, expected) => {
    expect(toE164(input)).toBe(expected);
  });

  it.each(["", "abc", "555-0100", "+1555010000", "+15550100001", "+1 201 555 010", "%E0%A4%A", "+999 123"])(
    "rejects %j",
    (input) => {
      expect(toE164(input)).toBeUndefined();
      expect(isValidPhone(input)).toBe(false);
    },
  );

  it("keeps malformed percent-escapes as written instead of throwing", () => {
    expect(decodePhoneInput("%E0%A4%A")).toBe("%E0%A4%A");
  });

  it("uses another default country when asked", () => {
    expect(toE164("020 7946 0958", "GB")).toBe("+442079460958");
  });

  it("describes region, area code and whether it is toll-free", () => {
    expect(parsePhone("+14165550100")).toEqual({
      e164: "+14165550100",
      country: "CA",
      countryCallingCode: "1",
      nationalNumber: "4165550100",
      areaCode: "416",
      tollFree: false,
    });
    for (const areaCode of ["800", "833", "844", "855", "866", "877", "888"])
      expect(parsePhone(`+1${areaCode}5550100`)?.tollFree, areaCode).toBe(true);
    expect(parsePhone("+442079460958")?.areaCode).toBeUndefined();
  });
});

describe("area code time zones", () => {
  it.each([
    ["212", "America/New_York"],
    ["312", "America/Chicago"],
    ["303", "America/Denver"],
    ["602", "America/Phoenix"],
    ["415", "America/Los_Angeles"],
    ["907", "America/Anchorage"],
    ["808", "Pacific/Honolulu"],
    ["787", "America/Puerto_Rico"],
    ["416", "America/Toronto"],
    ["306", "America/Regina"],
    ["709", "America/St_Johns"],
    ["208", "America/Boise"],
  ])("%s is in %s", (areaCode, zone) => {
    expect(areaCodeTimeZone(areaCode)).toBe(zone);
  });

  it.each(["800", "888", "500", "600", "999"])("%s has no zone", (areaCode) => {
    expect(areaCodeTimeZone(areaCode)).toBeUndefined();
  });

  it("lists each area code under one zone only", () => {
    const codes = knownAreaCodes();
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("names only zones the runtime knows", () => {
    for (const code of knownAreaCodes()) {
      const zone = areaCodeTimeZone(code) ?? "";
      expect(() => new Intl.DateTimeFormat("en-US", { timeZone: zone })).not.toThrow();
    }
  });

  it("covers every geographic US/CA/territory area code that libphonenumber accepts", () => {
    const geographic = new Set(["FIXED_LINE", "MOBILE", "FIXED_LINE_OR_MOBILE"]);
    const regions = new Set(["US", "CA", "PR", "VI", "GU", "MP", "AS"]);
    const missing: string[] = [];
    for (let npa = 200; npa <= 999; npa++) {
      const valid = ["555", "234", "456", "789"].some((exchange) => {
        const number = parsePhoneNumberFromString(`+1${npa}${exchange}0100`);
        return number?.isValid() && regions.has(number.country ?? "") && geographic.has(number.getType() ?? "");
      });
      if (valid && areaCodeTimeZone(String(npa)) === undefined) missing.push(String(npa));
    }
    expect(missing).toEqual([]);
  });
});

describe("state and province time zones", () => {
  it.each([
    ["TX", "America/Chicago"],
    ["tx", "America/Chicago"],
    ["Texas", "America/Chicago"],
    ["  new   york ", "America/New_York"],
    ["AZ", "America/Phoenix"],
    ["HI", "Pacific/Honolulu"],
    ["DC", "America/New_York"],
    ["PR", "America/Puerto_Rico"],
    ["SK", "America/Regina"],
    ["Quebec", "America/Toronto"],
  ])("%j is in %s", (region, zone) => {
    expect(regionTimeZone(region)).toBe(zone);
  });

  it("does not guess for unknown regions", () => {
    expect(regionTimeZone("Atlantis")).toBeUndefined();
    expect(regionTimeZone("")).toBeUndefined();
  });
});

describe("recipient time zone", () => {
  const organizationTimeZone = "America/Denver";

  it("prefers the number's area code", () => {
    expect(recipientTimeZone({ phone: "+13125550100", state: "CA", organizationTimeZone })).toEqual({
      timeZone: "America/Chicago",
      source: "AreaCode",
    });
  });

  it("falls back to the lead's state for numbers without a geographic area code", () => {
    expect(recipientTimeZone({ phone: "+18885550100", state: "WA", organizationTimeZone })).toEqual({
      timeZone: "America/Los_Angeles",
      source: "State",
    });
  });

  it("falls back to the organization when nothing else is known", () => {
    expect(recipientTimeZone({ phone: "+442079460958", state: "Nowhere", organizationTimeZone })).toEqual({
      timeZone: "America/Denver",
      source: "Organization",
    });
    expect(recipientTimeZone({ organizationTimeZone })).toEqual({ timeZone: "America/Denver", source: "Organization" });
  });
});
