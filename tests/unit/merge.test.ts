import { describe, expect, it } from "vitest";
import { byteOrder, MergedReader, type Position, type ReadChunk } from "#core/db/merge";
import { shardOf } from "#core/db/entity";

/**
 * The merge of write-sharded lists (core/db/merge.ts) over shards held here as sorted arrays, read the way DynamoDB
 * pages a Query: `limit` entries evaluated per call from after a key, a LastEvaluatedKey whenever the limit is
 * reached, entries a server-side filter drops evaluated but not returned.
 */
function shardsOf(ids: string[], count: number, dropped: (id: string) => boolean = () => false) {
  const shards: string[][] = Array.from({ length: count }, () => []);
  for (const id of ids) shards[shardOf(id, count)]!.push(id);
  for (const shard of shards) shard.sort(byteOrder);
  let calls = 0;
  const maxLimits: number[] = [];
  const read =
    (forward: boolean): ReadChunk =>
    async (shard, after, limit) => {
      calls++;
      maxLimits.push(limit);
      const ordered = forward ? shards[shard]! : [...shards[shard]!].reverse();
      const from = after ? ordered.indexOf(String(after.sk)) + 1 : 0;
      const evaluated = ordered.slice(from, from + limit);
      // DynamoDB answers a LastEvaluatedKey whenever the limit is reached, even at the very end.
      return {
        entries: evaluated.filter((id) => !dropped(id)).map((id) => ({ sk: id })),
        scanned: evaluated.length,
        ...(evaluated.length === limit ? { lastKey: { sk: evaluated.at(-1) } } : {}),
      };
    };
  return { read, stats: () => ({ calls, maxLimits }) };
}

/** Pages of `pageSize` through the merged shards, each from the positions the previous one left (a cursor). */
async function pages(read: ReadChunk, shards: number, pageSize: number, forward: boolean, budget = Infinity) {
  const all: string[][] = [];
  let start: Position[] = Array.from({ length: shards }, () => null);
  for (let page = 0; page < 1000; page++) {
    const reader = new MergedReader(read, { mergeBy: "sk", forward }, start);
    const handled = [...start];
    const items: string[] = [];
    let positions: Position[] | undefined;
    for (;;) {
      const next = await reader.next(pageSize + 1, budget);
      if (next === undefined || next === "budget") {
        positions = reader.positions(handled);
        break;
      }
      if (items.length === pageSize) {
        positions = reader.positions(
          handled,
          handled.map((_, index) => (index === next.shard ? 1 : 0)),
        );
        break;
      }
      items.push(String(next.entry.sk));
      handled[next.shard] = { sk: next.entry.sk };
    }
    all.push(items);
    if (positions.every((position) => position === false)) return all;
    start = positions;
  }
  throw new Error("the pages never ended");
}

const ids = Array.from({ length: 97 }, (_, index) => `LEAD#${String(index).padStart(4, "0")}${"x".repeat(index % 3)}`);

describe("merging write-sharded lists", () => {
  it("pages every item exactly once, in order, both ways, whatever the page size", async () => {
    for (const forward of [true, false]) {
      for (const pageSize of [1, 7, 25, 200]) {
        const { read } = shardsOf(ids, 8);
        const result = await pages(read(forward), 8, pageSize, forward);
        const expected = [...ids].sort(byteOrder);
        if (!forward) expected.reverse();
        expect(result.flat()).toEqual(expected);
        for (const page of result.slice(0, -1)) expect(page).toHaveLength(pageSize);
      }
    }
  });

  it("reads each shard at most page + 1 entries per call", async () => {
    const { read, stats } = shardsOf(ids, 8);
    await pages(read(true), 8, 10, true);
    expect(Math.max(...stats().maxLimits)).toBeLessThanOrEqual(11);
  });

  it("skips past entries a filter dropped and makes progress when the read budget runs out", async () => {
    const dropped = (id: string) => !id.endsWith("0x") && !id.endsWith("5");
    const { read } = shardsOf(ids, 4, dropped);
    const result = await pages(read(true), 4, 3, true, 12);
    expect(result.flat()).toEqual([...ids].filter((id) => !dropped(id)).sort(byteOrder));
    // A budget shorter than the page leaves short (even empty) pages that still end.
    expect(result.some((page) => page.length < 3)).toBe(true);
  });

  it("orders as DynamoDB does (UTF-8 bytes), not as JavaScript compares UTF-16 units", () => {
    const astral = "\u{1F600}";
    const high = "\uFF5E";
    expect(astral < high).toBe(true);
    expect(byteOrder(astral, high)).toBeGreaterThan(0);
  });

  it("spreads ids evenly over the shards and keeps an id in one shard", () => {
    const counts = new Array(8).fill(0);
    for (let index = 0; index < 8000; index++) counts[shardOf(`01J${index}`, 8)]++;
    for (const count of counts) expect(count).toBeGreaterThan(800);
    expect(shardOf("LEAD#x", 8)).toBe(shardOf("LEAD#x", 8));
  });
});
