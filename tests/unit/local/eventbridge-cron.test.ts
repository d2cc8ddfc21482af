import { Cron } from "croner";
import { describe, expect, it } from "vitest";
import { eventBridgeCronOptions, toCronerPattern } from "#local/scheduler";

const nextRuns = (expression: string, from: string, count = 3) =>
  new Cron(toCronerPattern(expression), { ...eventBridgeCronOptions, paused: true })
    .nextRuns(count, new Date(from))
    .map((date) => date.toISOString());

describe("EventBridge cron on the local scheduler", () => {
  it("reads day-of-week numbers as EventBridge does (1 = Sunday)", () => {
    expect(nextRuns("0 10 ? * 1 *", "2026-03-04T00:00:00Z", 1)).toEqual(["2026-03-08T10:00:00.000Z"]);
    expect(nextRuns("0 12 ? * MON-FRI *", "2026-03-06T13:00:00Z", 1)).toEqual(["2026-03-09T12:00:00.000Z"]);
  });

  it("accepts the cron(...) wrapper, 0/15 steps, L and # modifiers and a year, in UTC", () => {
    expect(nextRuns("cron(0/15 * * * ? *)", "2026-03-04T00:00:00Z")).toEqual([
      "2026-03-04T00:15:00.000Z",
      "2026-03-04T00:30:00.000Z",
      "2026-03-04T00:45:00.000Z",
    ]);
    expect(nextRuns("0 8 L * ? *", "2026-02-01T00:00:00Z", 1)).toEqual(["2026-02-28T08:00:00.000Z"]);
    expect(nextRuns("0 9 ? * 2#1 *", "2026-03-04T00:00:00Z", 1)).toEqual(["2026-04-06T09:00:00.000Z"]);
    expect(nextRuns("0 0 1 1 ? 2030", "2026-03-04T00:00:00Z", 2)).toEqual(["2030-01-01T00:00:00.000Z"]);
  });

  it("rejects expressions EventBridge would reject", () => {
    expect(() => toCronerPattern("*/5 * * * *")).toThrow(/6 fields/);
    expect(() => toCronerPattern("0 12 1 * MON *")).toThrow(/"\?"/);
  });
});
