import { describe, expect, it } from "vitest";
import { decodeTime, ulid } from "ulid";
import { creationWindow } from "#core/analytics/read";
import { histogramUpdate, rollupUpdate } from "#core/analytics/rollups";
import { minuteExpiresAt } from "#core/analytics/minutes";
import { AnalyticsCountedEntity, AnalyticsRollupEntity } from "#core/db/entities/analytics";
import { where } from "#core/db/expression";
import { spelled } from "#tests/helpers/expressions";

const inWindow = (window: ReturnType<typeof creationWindow>, sortKey: string) =>
  "between" in window && window.between[0] <= sortKey && sortKey <= window.between[1];

describe("a window's counted leads (leadFacts)", () => {
  it("a window from the epoch starts at millisecond 0, not at the current time", () => {
    const window = creationWindow("o1", { start: 0, end: 1000 });
    expect(window).toEqual({
      between: [`ANALYTICS#LEAD#${"0".repeat(26)}`, `ANALYTICS#LEAD#${ulid(999).slice(0, 10)}${"Z".repeat(16)}`],
    });
    // A lead created in the window's first second is read; one created now is not.
    expect(inWindow(window, `ANALYTICS#LEAD#${ulid(1)}`)).toBe(true);
    expect(inWindow(window, `ANALYTICS#LEAD#${ulid(999)}`)).toBe(true);
    expect(inWindow(window, `ANALYTICS#LEAD#${ulid(1000)}`)).toBe(false);
  });

  it("the window's edges are the first and last ULIDs of its first and last milliseconds", () => {
    const start = Date.parse("2026-03-01T10:00:00Z");
    const { between } = creationWindow("o1", { start, end: start + 60_000 }) as { between: [string, string] };
    expect(decodeTime(between[0].slice("ANALYTICS#LEAD#".length))).toBe(start);
    expect(decodeTime(between[1].slice("ANALYTICS#LEAD#".length))).toBe(start + 59_999);
    expect(inWindow({ between }, `ANALYTICS#LEAD#${ulid(start - 1)}`)).toBe(false);
    expect(inWindow({ between }, `ANALYTICS#LEAD#${ulid(start)}`)).toBe(true);
  });
});

describe("the analytics items keep their keys and their count-once conditions", () => {
  it("a rollup update adds each counter (ADD), names its entity and gives a minute item its TTL", () => {
    const { Update } = rollupUpdate("o1", "M", "2026-01-05T14:07", { leads: 2, "h#3": 1 });
    expect(Update!.Key).toEqual({ pk: "ORG#o1#ANALYTICS#M", sk: "ANALYTICS#M#2026-01-05T14:07" });
    const expiresAt = minuteExpiresAt(Date.parse("2026-01-05T14:07:00.000Z"));
    expect(spelled(Update!)).toBe(`SET entity = "AnalyticsRollup", expiresAt = ${expiresAt} ADD leads 2, h#3 1`);
    expect(Update!.ConditionExpression).toBeUndefined();
    const hour = rollupUpdate("o1", "H", "2026-01-05T14", { leads: 1 }).Update!;
    expect(spelled(hour)).toBe('SET entity = "AnalyticsRollup" ADD leads 1');
  });

  it("a histogram rewrite holds only if nobody rewrote it since it was read", () => {
    const first = histogramUpdate("o1", "D", "2026-01-05", { hist: { "h#3": 1 }, readVersion: undefined }).Update!;
    expect(first.Key).toEqual({ pk: "ORG#o1#ANALYTICS#D", sk: "ANALYTICS#D#2026-01-05#HIST" });
    expect(spelled(first, "ConditionExpression")).toBe("attribute_not_exists(hv)");
    expect(spelled(first)).toBe(
      `SET entity = "AnalyticsHistogram", hist = ${JSON.stringify(JSON.stringify({ h: { 3: 1 }, s: {}, a: {} }))}, hv = 1`,
    );
    const next = histogramUpdate("o1", "D", "2026-01-05", { hist: {}, readVersion: 4 }).Update!;
    expect(spelled(next, "ConditionExpression")).toBe("hv = 4");
    expect(spelled(next)).toContain("hv = 5");
  });

  it("an event's count-once marker is its key, entity and TTL, put only where none is", () => {
    const marker = AnalyticsCountedEntity.putAt(
      { organizationId: "o1", eventId: "ev1" },
      { expiresAt: 123 },
      { condition: where.new() },
    );
    expect(marker.Item).toEqual({
      pk: "ORG#o1#ANALYTICS#COUNTED#ev1",
      sk: "ANALYTICS#COUNTED#ev1",
      entity: "AnalyticsCounted",
      expiresAt: 123,
    });
    expect(spelled(marker, "ConditionExpression")).toBe("attribute_not_exists(pk)");
  });

  it("the check for existing hour items reads one key of the hour level's partition, consistently", () => {
    const query = AnalyticsRollupEntity.queryPartition(
      "collection",
      { organizationId: "o1", level: "H" },
      { range: { between: ["ANALYTICS#H#", "ANALYTICS#H#~"] }, attributes: ["sk"], consistent: true, limit: 1 },
    );
    expect(spelled(query, "KeyConditionExpression")).toBe(
      'pk = "ORG#o1#ANALYTICS#H" AND sk BETWEEN "ANALYTICS#H#" AND "ANALYTICS#H#~"',
    );
    expect(spelled(query, "ProjectionExpression")).toBe("sk");
    expect(query).toMatchObject({ ConsistentRead: true, Limit: 1 });
    expect(AnalyticsRollupEntity.sortKey("collection", { organizationId: "o1", level: "H" })).toBe("ANALYTICS#H#");
  });
});
