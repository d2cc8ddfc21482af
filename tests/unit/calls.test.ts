import { describe, expect, it } from "vitest";
import { normalizePathPhoneNumber } from "#core/calls/index";
import { selectCaller } from "#core/calls/sender";
import { ValidationError } from "#core/errors";
import type { PhoneNumber } from "#core/messaging/phone-numbers";

const number = (id: string, phoneNumber: string, capabilities: string[], lastUsedAt: string | null = null): PhoneNumber => ({
  id,
  phoneNumber,
  friendlyName: null,
  capabilities,
  areaCode: phoneNumber.slice(2, 5),
  lastUsedAt,
  createdAt: `2026-01-01T00:00:0${id.length}.000Z`,
  modifiedAt: null,
});

const ny = number("ny", "+12125550100", ["sms", "voice"], "2026-01-02T00:00:00.000Z");
const nyOld = number("ny2", "+12125550111", ["voice"], "2026-01-01T00:00:00.000Z");
const la = number("la", "+14155550100", ["sms", "voice"]);
const smsOnly = number("sms", "+13125550100", ["sms"]);

describe("calling number selection", () => {
  it("takes the caller's voice-capable choice first", () => {
    expect(selectCaller({ numbers: [ny, la], to: "+12125550199", overrideId: "la", stickyId: "ny" })).toMatchObject({ number: la, reason: "ManualOverride" });
  });

  it("keeps the conversation's sticky number, then prefers the recipient's area code, least recently used", () => {
    expect(selectCaller({ numbers: [ny, la], to: "+12125550199", overrideId: undefined, stickyId: "la" })).toMatchObject({ reason: "StickyConversation", number: la });
    expect(selectCaller({ numbers: [ny, nyOld, la], to: "+12125550199", overrideId: undefined, stickyId: null })).toMatchObject({ reason: "AreaCodeMatch", number: nyOld });
    expect(selectCaller({ numbers: [ny, la], to: "+13125550199", overrideId: undefined, stickyId: null })).toMatchObject({ reason: "LeastRecentlyUsed", number: la });
  });

  it("never picks a number without the voice capability", () => {
    expect(selectCaller({ numbers: [smsOnly], to: "+13125550199", overrideId: "sms", stickyId: "sms" })).toBeUndefined();
  });
});

describe("endpoint 14 path numbers", () => {
  it.each([
    ["%2B12125550100", "+12125550100"],
    ["+12125550100", "+12125550100"],
    [" 12125550100", "+12125550100"],
    ["2125550100", "+12125550100"],
    ["%2B1%20(212)%20555-0100", "+12125550100"],
  ])("normalises %j to %s", (raw, e164) => {
    expect(normalizePathPhoneNumber(raw)).toBe(e164);
  });

  it.each([["12ab"], ["%2B1"], ["+1555"], ["%zz"]])("refuses %j with a pointer to the path parameter", (raw) => {
    try {
      normalizePathPhoneNumber(raw);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors[0]?.pointer).toBe("/path/phoneNumber");
    }
  });
});
