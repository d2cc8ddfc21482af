import { describe, expect, it } from "vitest";
import * as Pacing from "#core/messaging/pacing";
import { LANED_ABOVE, LANE_MESSAGES_PER_SECOND, lanesOf, sendInterval } from "#core/messaging/pacing";

const at = (messagesPerSecond: number | null, phoneNumber = "+12125550100") => ({ phoneNumber, messagesPerSecond });

describe("pacing lanes (core/messaging/pacing.ts)", () => {
  it("a number up to LANED_ABOVE is one lane at its own rate; a faster one is split into lanes of whole messages a second", () => {
    expect(lanesOf(at(null))).toEqual({ count: 1, perSecond: 1 }); // a long code
    expect(lanesOf(at(null, "+18885550100"))).toEqual({ count: 1, perSecond: 3 }); // toll-free
    expect(lanesOf(at(0.2))).toEqual({ count: 1, perSecond: 0.2 });
    expect(lanesOf(at(LANED_ABOVE))).toEqual({ count: 1, perSecond: 10 }); // paced as before lanes
    expect(lanesOf(at(null, "55555"))).toEqual({ count: 20, perSecond: 5 }); // a short code's 100 MPS
    expect(lanesOf(at(50))).toEqual({ count: 10, perSecond: 5 });
    // The split that keeps the most of the rate, then the fewest lanes: 12 as 3 of 4 (4 of 3 keeps it too, in more
    // lanes), 14 as 7 of 2 (3 of 4 would lose two a second), 17 as 4 of 4 (no split of 4 to 16 lanes keeps all 17).
    expect(lanesOf(at(11))).toEqual({ count: 11, perSecond: 1 });
    expect(lanesOf(at(12))).toEqual({ count: 3, perSecond: 4 });
    expect(lanesOf(at(14))).toEqual({ count: 7, perSecond: 2 });
    expect(lanesOf(at(15))).toEqual({ count: 3, perSecond: 5 });
    expect(lanesOf(at(17))).toEqual({ count: 4, perSecond: 4 });
    expect(lanesOf(at(12.5))).toEqual({ count: 3, perSecond: 4 });
    expect(lanesOf(at(1000))).toEqual({ count: 200, perSecond: 5 });
  });

  it("never more than the number's rate in all its lanes, and no lane of a laned number faster than a lane's rate", () => {
    for (let rate = 1; rate <= 1000; rate += rate < 40 ? 1 : 7) {
      const { count, perSecond } = lanesOf(at(rate));
      expect(count * perSecond).toBeLessThanOrEqual(rate);
      expect(count * perSecond).toBeGreaterThanOrEqual(rate * 0.9 - 1);
      expect(perSecond).toBeLessThanOrEqual(rate > LANED_ABOVE ? LANE_MESSAGES_PER_SECOND : LANED_ABOVE);
      // A lane's send interval is its share: 200 ms at 5 a second.
      expect(sendInterval(at(rate))).toBe(Math.floor(1000 / perSecond));
    }
  });

  it("sends take each number's lanes in turn, whatever other numbers are looked at; a lane's view carries lane 0's next slot; a number of one lane is left as it is", () => {
    const fast = { id: "n1", phoneNumber: "+12125550100", messagesPerSecond: 50, paceNextAt: Date.now() + 5_000 };
    // Sender choice views every candidate on each send: five numbers of ten lanes each, twenty sends.
    const pool = [fast, ...["n2", "n3", "n4", "n5"].map((id) => ({ ...fast, id }))];
    const views = Array.from({ length: 20 }, () => pool.map((number) => Pacing.onLane(number)));
    for (const [index, number] of pool.entries()) {
      const lanes = views.map((send) => send[index]!.lane ?? 0);
      expect([...lanes].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => Math.floor(index / 2)));
      for (const send of views) expect(send[index]!).toMatchObject({ id: number.id, paceNextAt: fast.paceNextAt });
    }
    const slow = { ...fast, id: "n6", messagesPerSecond: 3 };
    expect(Pacing.onLane(slow)).toBe(slow);
  });
});
