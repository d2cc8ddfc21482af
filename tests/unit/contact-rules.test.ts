import { describe, expect, it } from "vitest";
import { contactCap, passedCheck, stateContactRule, stateContactRules } from "#core/consent/contact-rules";
import { checkContactWindow } from "#core/messaging/contact-rules";
import { classifyInbound, revocationInFreeText } from "#core/messaging/keywords";

const national = { start: "08:00", end: "21:00" };
const newYork = "America/New_York";

describe("state contact windows", () => {
  it("defers a text to a Florida recipient at 20:30 local (inside the national window) to 08:00 the next day, naming the rule", () => {
    const decision = checkContactWindow({
      at: new Date("2026-03-10T00:30:00Z"),
      timeZone: newYork,
      window: national,
      state: "FL",
    });
    expect(decision).toMatchObject({
      allowed: false,
      nextAllowedAt: "2026-03-10T12:00:00.000Z",
      complianceAction: "StateWindow:FL",
    });
    expect(decision.allowed === false && decision.scheduledReason).toMatch(
      /Florida contact window \(Fla\. Stat\. § 501\.059\(8\)\(a\)\)/,
    );
  });

  it("falls back to the national window where the state keeps no rule, and takes the later start of both windows", () => {
    expect(
      checkContactWindow({ at: new Date("2026-03-10T00:30:00Z"), timeZone: newYork, window: national, state: "NJ" }),
    ).toMatchObject({ allowed: true });
    expect(
      checkContactWindow({ at: new Date("2026-03-10T00:30:00Z"), timeZone: newYork, window: national, state: null }),
    ).toMatchObject({ allowed: true });
    // 07:00 in Texas' noon window and an organization window from 09:00: noon the same day.
    const texas = checkContactWindow({
      at: new Date("2026-03-10T12:00:00Z"),
      timeZone: "America/Chicago",
      window: { start: "09:00", end: "21:00" },
      state: "Texas",
    });
    expect(texas).toMatchObject({
      allowed: false,
      nextAllowedAt: "2026-03-10T17:00:00.000Z",
      complianceAction: "StateWindow:TX",
    });
    // The organization's own window (quiet hours off in Florida's window: 08:00-20:00 decides).
    expect(
      checkContactWindow({
        at: new Date("2026-03-10T15:00:00Z"),
        timeZone: newYork,
        window: { start: "00:00", end: "00:00" },
        state: "FL",
      }),
    ).toMatchObject({ allowed: true });
  });

  it("a send the windows allow names the windows it passed; caps passed are named by whose cap they are", () => {
    const at = new Date("2026-03-10T15:00:00Z");
    expect(checkContactWindow({ at, timeZone: newYork, window: national, state: "FL" })).toMatchObject({
      allowed: true,
      checks: ["QuietHours", "StateWindow:FL"],
    });
    expect(checkContactWindow({ at, timeZone: newYork, window: national, state: "NJ" })).toMatchObject({
      allowed: true,
      checks: ["QuietHours"],
    });
    expect(passedCheck.caps(5, stateContactRule("FL"))).toEqual(["FrequencyCap", "FrequencyCap:FL"]);
    expect(passedCheck.caps(null, stateContactRule("TX"))).toEqual([]);
  });

  it("keeps every rule in one table with its source, Florida, Oklahoma and Maryland at 3 per 24 hours", () => {
    for (const rule of stateContactRules) expect(rule.source).not.toBe("");
    expect(["FL", "OK", "MD"].map((state) => stateContactRule(state)?.maxPer24Hours)).toEqual([3, 3, 3]);
    expect(stateContactRule("oklahoma")?.state).toBe("OK");
    expect(contactCap(null, stateContactRule("FL"))).toEqual({
      max: 3,
      source: "Florida (Fla. Stat. § 501.059(8)(a))",
    });
    expect(contactCap(2, stateContactRule("FL"))).toEqual({ max: 2, source: "the organization's frequency cap" });
    expect(contactCap(null, stateContactRule("NJ"))).toBeUndefined();
  });
});

describe("revocation", () => {
  it("honours every word of the FCC's 2024 order and CTIA as an opt-out keyword", () => {
    for (const word of ["STOP", "stopall", "Unsubscribe", "CANCEL", "end", "QUIT", "revoke", "OPTOUT", "opt out."]) {
      expect(classifyInbound(word)).toMatchObject({ kind: "OptOut" });
    }
  });

  it("flags free-text requests to stop for review, not ordinary messages", () => {
    for (const text of [
      "please stop texting me",
      "Don't call me again",
      "take me off your list",
      "remove my number from this",
      "I want to opt-out",
    ]) {
      expect(revocationInFreeText(text)).toBe(true);
    }
    for (const text of ["can you stop by tomorrow?", "call me at 5", "what is the price"])
      expect(revocationInFreeText(text)).toBe(false);
  });
});
