import { describe, expect, it } from "vitest";
import { capPeriods, isWorkingTime } from "#core/routing/availability";
import { inTurn, leastRecentlyAssigned } from "#core/routing/strategies";

const members = [{ userId: "ann" }, { userId: "bob" }, { userId: "cat" }];

describe("routing strategies", () => {
  it("round robin gives consecutive tickets to consecutive members; weighted gives a member w turns per cycle", () => {
    expect([0, 1, 2, 3, 4].map((ticket) => inTurn(members, ticket).userId)).toEqual([
      "ann",
      "bob",
      "cat",
      "ann",
      "bob",
    ]);
    expect(Array.from({ length: 10 }, (_, ticket) => inTurn(members.slice(0, 2), ticket, { ann: 3 }).userId)).toEqual([
      "ann",
      "ann",
      "ann",
      "bob",
      "ann",
      "ann",
      "ann",
      "bob",
      "ann",
      "ann",
    ]);
  });

  it("least recently assigned takes a member never assigned first (pool order on ties), else the oldest", () => {
    expect(leastRecentlyAssigned(members, new Map()).userId).toBe("ann");
    expect(leastRecentlyAssigned(members, new Map([["ann", "2026-01-01T00:00:02Z"]])).userId).toBe("bob");
    expect(
      leastRecentlyAssigned(
        members,
        new Map([
          ["ann", "2026-01-01T00:00:03Z"],
          ["bob", "2026-01-01T00:00:01Z"],
          ["cat", "2026-01-01T00:00:02Z"],
        ]),
      ).userId,
    ).toBe("bob");
  });
});

describe("availability", () => {
  // Monday 2026-11-23 at 23:30 UTC is Tuesday 08:30 in Tokyo.
  const now = new Date("2026-11-23T23:30:00Z");

  it("reads working hours in the user's time zone; no hours means always available", () => {
    expect(isWorkingTime([], "UTC", now)).toBe(true);
    expect(isWorkingTime([{ day: "Tue", start: "08:00", end: "17:00" }], "Asia/Tokyo", now)).toBe(true);
    expect(isWorkingTime([{ day: "Tue", start: "09:00", end: "17:00" }], "Asia/Tokyo", now)).toBe(false);
    expect(isWorkingTime([{ day: "Mon", start: "08:00", end: "23:59" }], "Asia/Tokyo", now)).toBe(false);
    expect(isWorkingTime([{ day: "Mon", start: "23:00", end: "23:59" }], "UTC", now)).toBe(true);
    // A day worked "00:00–23:59" includes its last minute (no clock says 24:00); any other end minute is excluded.
    const lastMinute = new Date("2026-11-24T14:59:30Z"); // Tue 23:59:30 in Tokyo
    expect(isWorkingTime([{ day: "Tue", start: "00:00", end: "23:59" }], "Asia/Tokyo", lastMinute)).toBe(true);
    expect(
      isWorkingTime([{ day: "Tue", start: "00:00", end: "23:58" }], "Asia/Tokyo", new Date("2026-11-24T14:58:30Z")),
    ).toBe(false);
  });

  it("caps restart at the day and hour of the organization's time zone", () => {
    expect(capPeriods("Asia/Tokyo", now)).toEqual({ day: "2026-11-24", hour: "2026-11-24T08" });
    expect(capPeriods("America/New_York", now)).toEqual({ day: "2026-11-23", hour: "2026-11-23T18" });
  });
});
