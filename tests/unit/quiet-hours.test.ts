import { describe, expect, it } from "vitest";
import { checkQuietHours, instantOfWallTime, isValidTimeZone } from "#core/messaging/quiet-hours";

const NY = "America/New_York";

describe("quiet hours with the default 08:00-21:00 window", () => {
  it.each([
    ["08:00 local is the first allowed minute", "2025-06-10T12:00:00.000Z", NY],
    ["20:59:59 local is still allowed", "2025-06-11T00:59:59.000Z", NY],
    ["midday in Phoenix (no DST)", "2025-07-01T19:00:00.000Z", "America/Phoenix"],
    ["the middle of a Honolulu afternoon", "2025-01-15T01:00:00.000Z", "Pacific/Honolulu"],
  ])("%s", (_name, at, timeZone) => {
    expect(checkQuietHours({ at, timeZone })).toMatchObject({ allowed: true });
  });

  it.each([
    ["21:00 local defers to the next morning", "2025-06-11T01:00:00.000Z", NY, "21:00", "2025-06-11T12:00:00.000Z"],
    ["07:59 local defers to 08:00 the same day", "2025-06-10T11:59:00.000Z", NY, "07:59", "2025-06-10T12:00:00.000Z"],
    ["03:00 local defers to 08:00 the same day", "2025-06-10T07:00:00.000Z", NY, "03:00", "2025-06-10T12:00:00.000Z"],
    [
      "23:30 in Los Angeles crosses the UTC date",
      "2025-06-11T06:30:00.000Z",
      "America/Los_Angeles",
      "23:30",
      "2025-06-11T15:00:00.000Z",
    ],
    [
      "22:00 on New Year's Eve rolls into the next year",
      "2026-01-01T03:00:00.000Z",
      NY,
      "22:00",
      "2026-01-01T13:00:00.000Z",
    ],
    [
      "late evening in Newfoundland (half-hour offset)",
      "2025-01-16T01:00:00.000Z",
      "America/St_Johns",
      "21:30",
      "2025-01-16T11:30:00.000Z",
    ],
  ])("%s", (_name, at, timeZone, localTime, nextAllowedAt) => {
    const decision = checkQuietHours({ at, timeZone });
    expect(decision).toMatchObject({ allowed: false, localTime, nextAllowedAt, reason: "QuietHours" });
  });

  it("explains the deferral in scheduledReason", () => {
    const decision = checkQuietHours({ at: "2025-06-11T02:15:00.000Z", timeZone: NY });
    expect(decision.allowed).toBe(false);
    if (!decision.allowed) {
      expect(decision.scheduledReason).toBe(
        "Quiet hours: 22:15 in America/New_York is outside the sending window 08:00-21:00; scheduled for 08:00 local time.",
      );
    }
  });
});

describe("quiet hours across daylight saving changes", () => {
  it("after the spring-forward night, 08:00 EDT is 12:00Z (not 13:00Z)", () => {
    // 2025-03-09: New York moves from UTC-5 to UTC-4 at 02:00 local.
    expect(checkQuietHours({ at: "2025-03-09T04:00:00.000Z", timeZone: NY })).toMatchObject({
      allowed: false,
      localTime: "23:00",
      nextAllowedAt: "2025-03-09T12:00:00.000Z",
    });
  });

  it("after the fall-back night, 08:00 EST is 13:00Z", () => {
    // 2025-11-02: New York moves from UTC-4 to UTC-5 at 02:00 local.
    expect(checkQuietHours({ at: "2025-11-02T03:00:00.000Z", timeZone: NY })).toMatchObject({
      allowed: false,
      localTime: "23:00",
      nextAllowedAt: "2025-11-02T13:00:00.000Z",
    });
  });

  it("a window starting in the skipped hour opens just after the gap", () => {
    expect(
      checkQuietHours({ at: "2025-03-09T06:00:00.000Z", timeZone: NY, window: { start: "02:30", end: "21:00" } }),
    ).toMatchObject({ allowed: false, nextAllowedAt: "2025-03-09T07:30:00.000Z" });
  });

  it("a window starting in the repeated hour opens at its first occurrence", () => {
    expect(
      checkQuietHours({ at: "2025-11-02T04:00:00.000Z", timeZone: NY, window: { start: "01:30", end: "21:00" } }),
    ).toMatchObject({ allowed: false, localTime: "00:00", nextAllowedAt: "2025-11-02T05:30:00.000Z" });
  });

  it("converts wall times to instants on both sides of a change", () => {
    const wall = { year: 2025, month: 3, day: 8, hour: 8, minute: 0, second: 0 };
    expect(new Date(instantOfWallTime(wall, NY)).toISOString()).toBe("2025-03-08T13:00:00.000Z");
    expect(new Date(instantOfWallTime({ ...wall, day: 10 }, NY)).toISOString()).toBe("2025-03-10T12:00:00.000Z");
  });
});

describe("custom windows", () => {
  it("an overnight window allows late evening and defers the afternoon to its start", () => {
    const window = { start: "20:00", end: "06:00" };
    expect(checkQuietHours({ at: "2025-06-11T03:00:00.000Z", timeZone: NY, window })).toMatchObject({ allowed: true });
    expect(checkQuietHours({ at: "2025-06-10T09:00:00.000Z", timeZone: NY, window })).toMatchObject({ allowed: true });
    expect(checkQuietHours({ at: "2025-06-10T16:00:00.000Z", timeZone: NY, window })).toMatchObject({
      allowed: false,
      nextAllowedAt: "2025-06-11T00:00:00.000Z",
    });
  });

  it("a window whose start equals its end allows any time", () => {
    const window = { start: "00:00", end: "00:00" };
    expect(checkQuietHours({ at: "2025-06-10T07:00:00.000Z", timeZone: NY, window })).toMatchObject({ allowed: true });
  });

  it("accepts a Date as the send time", () => {
    expect(checkQuietHours({ at: new Date("2025-06-10T16:00:00.000Z"), timeZone: NY })).toMatchObject({
      allowed: true,
      localTime: "12:00",
    });
  });
});

describe("invalid input", () => {
  it("rejects unknown zones, malformed windows and invalid times", () => {
    expect(isValidTimeZone("America/Chicago")).toBe(true);
    expect(isValidTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(() => checkQuietHours({ at: "2025-06-10T16:00:00Z", timeZone: "Mars/Olympus_Mons" })).toThrow(RangeError);
    expect(() => checkQuietHours({ at: "not a date", timeZone: NY })).toThrow(RangeError);
    expect(() =>
      checkQuietHours({ at: "2025-06-10T16:00:00Z", timeZone: NY, window: { start: "8:00", end: "21:00" } }),
    ).toThrow();
    expect(() =>
      checkQuietHours({ at: "2025-06-10T16:00:00Z", timeZone: NY, window: { start: "24:00", end: "21:00" } }),
    ).toThrow();
  });
});
