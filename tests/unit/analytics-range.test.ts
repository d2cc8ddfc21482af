import { describe, expect, it } from "vitest";
import { effectOf, responseCounters } from "#core/analytics/counters";
import { medianOf } from "#core/analytics/read";
import { bucketsOf, granularityOf, piecesOf, previousRange, resolveRange } from "#core/analytics/range";
import { compare } from "#core/analytics/report";
import { ValidationError } from "#core/errors";
import { toEventRecord } from "#core/events/index";

const at = (iso: string) => Date.parse(iso);
const hour = 3600_000;
const day = 24 * hour;

describe("analytics range", () => {
  it("defaults to the 30 days before now, endAt exclusive", () => {
    const now = at("2026-03-10T12:34:56Z");
    expect(resolveRange({}, now)).toEqual({ start: now - 30 * day, end: now });
    expect(resolveRange({ days: 7, endAt: "2026-03-01T00:00:00Z" }, now)).toEqual({
      start: at("2026-02-22T00:00:00Z"),
      end: at("2026-03-01T00:00:00Z"),
    });
  });

  it("refuses startAt with days, a start at or after the end, and windows over 365 days", () => {
    const now = at("2026-03-10T00:00:00Z");
    expect(() => resolveRange({ startAt: "2026-03-01T00:00:00Z", days: 3 }, now)).toThrow(ValidationError);
    expect(() => resolveRange({ startAt: "2026-03-10T00:00:00Z" }, now)).toThrow(ValidationError);
    expect(() => resolveRange({ startAt: "2026-03-02T00:00:00Z", endAt: "2026-03-01T00:00:00Z" }, now)).toThrow(
      ValidationError,
    );
    expect(() => resolveRange({ startAt: "2025-03-09T23:59:59Z" }, now)).toThrow(ValidationError);
    expect(resolveRange({ startAt: "2025-03-10T00:00:00Z" }, now)).toEqual({
      start: at("2025-03-10T00:00:00Z"),
      end: now,
    });
  });

  it("compares with the period of the same length just before", () => {
    expect(previousRange({ start: 100, end: 160 })).toEqual({ start: 40, end: 100 });
    expect(compare(3, 0)).toEqual({ current: 3, previous: 0, changePercent: null, direction: "up" });
    expect(compare(1, 4)).toEqual({ current: 1, previous: 4, changePercent: -75, direction: "down" });
    expect(compare(2, 2)).toEqual({ current: 2, previous: 2, changePercent: 0, direction: "flat" });
  });

  it("uses hours up to 2 days, weeks beyond 90 days, days in between", () => {
    const end = at("2026-03-10T00:00:00Z");
    expect(granularityOf({ start: end - 2 * day, end })).toBe("Hour");
    expect(granularityOf({ start: end - 2 * day - 1, end })).toBe("Day");
    expect(granularityOf({ start: end - 90 * day, end })).toBe("Day");
    expect(granularityOf({ start: end - 90 * day - 1, end })).toBe("Week");
  });

  it("tiles the range with calendar buckets clipped at both ends, labelled", () => {
    const range = { start: at("2026-03-01T10:30:00Z"), end: at("2026-03-04T06:00:00Z") };
    const buckets = bucketsOf(range);
    expect(buckets.map((bucket) => bucket.label)).toEqual(["2026-03-01", "2026-03-02", "2026-03-03", "2026-03-04"]);
    expect(buckets[0]).toMatchObject({ start: range.start, end: at("2026-03-02T00:00:00Z") });
    expect(buckets.at(-1)).toMatchObject({ start: at("2026-03-04T00:00:00Z"), end: range.end });
    const weeks = bucketsOf({ start: at("2026-01-01T00:00:00Z"), end: at("2026-04-15T00:00:00Z") });
    expect(weeks[0]).toMatchObject({
      label: "Week of 2025-12-29",
      start: at("2026-01-01T00:00:00Z"),
      end: at("2026-01-05T00:00:00Z"),
    });
    expect(
      bucketsOf({ start: at("2026-03-01T10:15:00Z"), end: at("2026-03-01T12:00:00Z") }).map((bucket) => bucket.label),
    ).toEqual(["2026-03-01 10:00", "2026-03-01 11:00"]);
  });

  it("reads whole days and hours from rollups and only the sub-hour edges exactly", () => {
    const pieces = piecesOf({ start: at("2026-03-01T22:30:00Z"), end: at("2026-03-04T01:15:00Z") });
    expect(
      pieces.map((piece) => [piece.kind, "bucket" in piece ? piece.bucket : new Date(piece.start).toISOString()]),
    ).toEqual([
      ["exact", "2026-03-01T22:30:00.000Z"],
      ["hour", "2026-03-01T23"],
      ["day", "2026-03-02"],
      ["day", "2026-03-03"],
      ["hour", "2026-03-04T00"],
      ["exact", "2026-03-04T01:00:00.000Z"],
    ]);
    expect(piecesOf({ start: at("2026-03-01T10:10:00Z"), end: at("2026-03-01T10:20:00Z") })).toEqual([
      { kind: "exact", start: at("2026-03-01T10:10:00Z"), end: at("2026-03-01T10:20:00Z") },
    ]);
    expect(piecesOf({ start: at("2026-03-01T00:00:00Z"), end: at("2026-03-02T00:00:00Z") }, "Hour")).toHaveLength(24);
    const year = piecesOf({ start: at("2025-03-10T13:20:00Z"), end: at("2026-03-10T12:34:56Z") }, "Week");
    expect(
      year
        .filter((piece) => piece.kind === "week")
        .map((piece) => (piece as { bucket: string }).bucket)
        .slice(0, 2),
    ).toEqual(["2025-03-17", "2025-03-24"]);
    expect(year.length).toBeLessThan(120);
    expect(year.reduce((sum, piece) => sum + piece.end - piece.start, 0)).toBe(
      at("2026-03-10T12:34:56Z") - at("2025-03-10T13:20:00Z"),
    );
  });

  it("reads the edges' whole minutes from minute rollups and their partial minutes from second rollups where they are kept", () => {
    const range = { start: at("2026-03-01T22:30:30Z"), end: at("2026-03-02T01:15:10Z") };
    const label = (piece: ReturnType<typeof piecesOf>[number]) => [
      piece.kind,
      "bucket" in piece ? piece.bucket : `${new Date(piece.start).toISOString()}…${new Date(piece.end).toISOString()}`,
    ];
    const everything = { minutes: 0, seconds: 0 };
    const pieces = piecesOf(range, "Hour", everything).map(label);
    expect(pieces.slice(0, 2)).toEqual([
      ["second", "2026-03-01T22:30:30"],
      ["second", "2026-03-01T22:30:31"],
    ]);
    expect(pieces.filter(([kind]) => kind === "second")).toHaveLength(30 + 10);
    expect(pieces[30]).toEqual(["minute", "2026-03-01T22:31"]);
    expect(pieces.filter(([kind]) => kind === "minute")).toHaveLength(29 + 15);
    expect(pieces.filter(([kind]) => kind === "hour").map(([, bucket]) => bucket)).toEqual([
      "2026-03-01T23",
      "2026-03-02T00",
    ]);
    expect(pieces.at(-11)).toEqual(["minute", "2026-03-02T01:14"]);
    expect(pieces.at(-1)).toEqual(["second", "2026-03-02T01:15:09"]);
    expect(pieces.filter(([kind]) => kind === "exact")).toEqual([]);
    // A sub-second part (resolveRange leaves none) is read exactly.
    expect(
      piecesOf({ start: at("2026-03-01T22:30:30.500Z"), end: range.end }, "Hour", everything).map(label)[0],
    ).toEqual(["exact", "2026-03-01T22:30:30.500Z…2026-03-01T22:30:31.000Z"]);
    // Before minute rollups start, the edge is read exactly up to the first whole minute after that (second rollups
    // began no earlier); before second rollups start, a partial minute is read exactly.
    const partly = piecesOf(range, "Hour", {
      minutes: at("2026-03-01T22:50:20Z"),
      seconds: at("2026-03-01T22:50:20Z"),
    }).map(label);
    expect(partly.slice(0, 2)).toEqual([
      ["exact", "2026-03-01T22:30:30.000Z…2026-03-01T22:50:20.000Z"],
      ["second", "2026-03-01T22:50:20"],
    ]);
    expect(partly[40]).toEqual(["second", "2026-03-01T22:50:59"]);
    expect(partly[41]).toEqual(["minute", "2026-03-01T22:51"]);
    const minutesOnly = piecesOf(range, "Hour", { minutes: 0, seconds: Infinity }).map(label);
    expect(minutesOnly[0]).toEqual(["exact", "2026-03-01T22:30:30.000Z…2026-03-01T22:31:00.000Z"]);
    expect(minutesOnly.at(-1)).toEqual(["exact", "2026-03-02T01:15:00.000Z…2026-03-02T01:15:10.000Z"]);
    // Without fine rollups (the default), edges are exact as a whole; inside one minute, seconds.
    expect(piecesOf(range, "Hour").map(label)[0]).toEqual([
      "exact",
      "2026-03-01T22:30:30.000Z…2026-03-01T23:00:00.000Z",
    ]);
    expect(
      piecesOf({ start: at("2026-03-01T10:10:10Z"), end: at("2026-03-01T10:10:50Z") }, "Hour", everything),
    ).toHaveLength(40);
    const pieceSpan = (list: ReturnType<typeof piecesOf>) =>
      list.reduce((sum, piece) => sum + piece.end - piece.start, 0);
    expect(pieceSpan(piecesOf(range, "Hour", everything))).toBe(range.end - range.start);
    expect(
      pieceSpan(piecesOf(range, "Hour", { minutes: at("2026-03-01T22:50:20Z"), seconds: at("2026-03-01T22:55:00Z") })),
    ).toBe(range.end - range.start);
  });

  it("resolves windows to whole seconds", () => {
    const now = at("2026-03-10T12:34:56.789Z");
    expect(resolveRange({ days: 1 }, now)).toEqual({
      start: at("2026-03-09T12:34:56Z"),
      end: at("2026-03-10T12:34:56Z"),
    });
    expect(resolveRange({ startAt: "2026-03-10T10:00:00.999Z", endAt: "2026-03-10T11:00:00.500Z" }, now)).toEqual({
      start: at("2026-03-10T10:00:00Z"),
      end: at("2026-03-10T11:00:00Z"),
    });
    expect(() => resolveRange({ startAt: "2026-03-10T10:00:00.100Z", endAt: "2026-03-10T10:00:00.900Z" }, now)).toThrow(
      ValidationError,
    );
  });
});

describe("analytics counters", () => {
  const event = (fields: Record<string, unknown>) =>
    toEventRecord({ id: "01J", createdAt: "2026-03-01T10:00:00.000Z", eventCategory: "Sms", ...fields });

  it("counts an outbound sent message and makes it a response candidate for its lead", () => {
    const effect = effectOf(event({ eventType: "MessageSent", direction: "Outbound", leadId: "L1" }));
    expect(effect.counters).toEqual({ smsSent: 1 });
    expect(effect.response).toEqual({ leadId: "L1", at: at("2026-03-01T10:00:00.000Z") });
  });

  it("counts a message whose delivery receipt overtook its Sent receipt once, at its final event", () => {
    const delivered = effectOf(
      event({
        eventType: "MessageDelivered",
        direction: "Outbound",
        leadId: "L1",
        sendingStartedAt: "2026-03-01T09:59:58.000Z",
      }),
    );
    expect(delivered.counters).toEqual({ smsSent: 1, smsDelivered: 1 });
    expect(delivered.response).toEqual({ leadId: "L1", at: at("2026-03-01T09:59:58.000Z") });
    expect(
      effectOf(event({ eventType: "MessageDelivered", direction: "Outbound", sentAt: "2026-03-01T09:59:59.000Z" }))
        .counters,
    ).toEqual({ smsDelivered: 1 });
    expect(effectOf(event({ eventType: "MessageFailed", direction: "Outbound" })).counters).toEqual({ smsFailed: 1 });
  });

  it("counts spend only on final events that were charged, in exact 1/10 000 units", () => {
    expect(
      effectOf(
        event({
          eventType: "MessageDelivered",
          direction: "Outbound",
          sentAt: "2026-03-01T09:59:59.000Z",
          billingStatus: "Charged",
          billableAmount: 0.0079,
        }),
      ).counters,
    ).toEqual({ smsDelivered: 1, spend: 79 });
    expect(
      effectOf(
        event({ eventType: "MessageSent", direction: "Outbound", billingStatus: "Reserved", billableAmount: 0.0079 }),
      ).counters,
    ).toEqual({ smsSent: 1 });
  });

  it("puts a response in the five-minute and threshold counters by its whole seconds", () => {
    expect(responseCounters({ sourceId: "S1" }, 300)).toMatchObject({
      responded: 1,
      rSec: 300,
      r5: 1,
      rThr: 1,
      "h#5": 1,
      "hs#S1#5": 1,
    });
    expect(responseCounters({ sourceId: "S1", assignedUserId: "U1" }, 300)).toMatchObject({
      "agResp#U1": 1,
      "agRSec#U1": 300,
      "agR5#U1": 1,
      "agThr#U1": 1,
      "ha#U1#5": 1,
    });
    expect(responseCounters({ sourceId: null }, 3601)).toEqual({
      responded: 1,
      rSec: 3601,
      "h#60": 1,
      "srcResp#none": 1,
      "hs#none#60": 1,
    });
  });

  it("takes the exact median of a minute histogram (the mean of the middle two for an even count)", () => {
    expect(medianOf({ "1": 2, "4": 1 })).toBe(1);
    expect(medianOf({ "1": 1, "4": 1 })).toBe(2.5);
    expect(medianOf({ "10": 1, "9": 2, "100": 2 })).toBe(10);
    expect(medianOf({})).toBeNull();
    expect(medianOf(undefined)).toBeNull();
  });
});
