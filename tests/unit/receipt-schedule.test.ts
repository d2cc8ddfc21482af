import { describe, expect, it } from "vitest";
import { nextReceiptCheck } from "#core/messaging/receipts";

const minute = 60_000;
const hour = 60 * minute;
const handedAt = Date.parse("2026-11-28T12:00:00.000Z");
// The defaults: first asked 2 minutes after the hand-off, Unknown after 72 hours.
const schedule = { handedAt, carrierUnreachable: false, timeoutMs: 72 * hour, checkMs: 2 * minute };

/** The check times from the first one on, each asked at the time the previous one set, until the schedule gives up. */
function checks(carrierUnreachable = false): number[] {
  const times: number[] = [];
  let now: number | undefined = handedAt + schedule.checkMs;
  while (now !== undefined && times.length < 2_000) {
    times.push(now);
    now = nextReceiptCheck({ ...schedule, carrierUnreachable, now });
  }
  return times;
}

describe("when the carrier is asked again about a message with no final receipt", () => {
  it("doubles the time since the hand-off: 4 min, 8 min, 16 min … then the timeout itself, and no more", () => {
    const times = checks().map((time) => (time - handedAt) / minute);
    expect(times.slice(0, 6)).toEqual([2, 4, 8, 16, 32, 64]);
    // 2 × 2^n minutes up to 4,096 (68 h), then the 72 h timeout itself; asked there, it gives up.
    expect(times.slice(-3)).toEqual([2_048, 4_096, 72 * 60]);
    expect(nextReceiptCheck({ ...schedule, now: handedAt + 72 * hour })).toBeUndefined();
  });

  it("never asks again within a minute, even right after the hand-off", () => {
    expect(nextReceiptCheck({ ...schedule, now: handedAt + 5_000 })).toBe(handedAt + 5_000 + minute);
  });

  it("keeps asking a carrier that cannot be reached every check interval for a day past the timeout", () => {
    const afterTimeout = checks(true).filter((time) => time >= handedAt + 72 * hour);
    expect(afterTimeout[0]).toBe(handedAt + 72 * hour);
    const gaps = afterTimeout.slice(1).map((time, index) => time - afterTimeout[index]!);
    expect(new Set(gaps)).toEqual(new Set([2 * minute]));
    expect(afterTimeout.at(-1)).toBe(handedAt + 96 * hour);
    expect(nextReceiptCheck({ ...schedule, carrierUnreachable: true, now: handedAt + 96 * hour })).toBeUndefined();
  });

  it("follows a shorter configured timeout (a stage that settles receipts within an hour)", () => {
    const short = { ...schedule, timeoutMs: hour };
    expect(nextReceiptCheck({ ...short, now: handedAt + 40 * minute })).toBe(handedAt + hour);
    expect(nextReceiptCheck({ ...short, now: handedAt + hour })).toBeUndefined();
  });
});
