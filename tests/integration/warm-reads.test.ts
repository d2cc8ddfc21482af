import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { table } from "#core/db/items";
import { warmReadMs, warmReads } from "#core/db/warm";
import { newId } from "#core/shared/ids";
import { applyStackEnv } from "#tests/helpers/stack";

/**
 * Issue 16: rarely-changing items (messaging settings, the organization profile) are
 * read once per warm instance for `warmReadMs`; the writer's instance forgets
 * its entry at once, and other instances see a change when the entry expires.
 */
describe("warm reads", () => {
  beforeAll(() => applyStackEnv());
  afterEach(() => vi.useRealTimers());
  const key = () => ({ pk: `ORG#${newId()}`, sk: "SETTINGS#TEST" });

  it("answers from memory until the entry expires, and at once after `forget`", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const reads = warmReads();
    const at = key();
    await table.put({ Item: { ...at, value: 1 } });
    expect((await reads.get(at))?.value).toBe(1);
    // Another instance changed it: this one still answers what it read, within warmReadMs.
    await table.put({ Item: { ...at, value: 2 } });
    vi.setSystemTime(Date.now() + warmReadMs - 1000);
    expect((await reads.get(at))?.value).toBe(1);
    vi.setSystemTime(Date.now() + 2000);
    expect((await reads.get(at))?.value).toBe(2);
    // This instance wrote it: the next read is fresh.
    await table.put({ Item: { ...at, value: 3 } });
    reads.forget(at);
    expect((await reads.get(at))?.value).toBe(3);
  });

  it("shares one read among concurrent callers, and remembers an absent item only when told to", async () => {
    const at = key();
    const reads = warmReads();
    const concurrent = Array.from({ length: 5 }, () => reads.get(at));
    // One read in flight, shared: every caller holds the same pending answer.
    expect(new Set(concurrent).size).toBe(1);
    expect(await Promise.all(concurrent)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    await table.put({ Item: { ...at, value: "later" } });
    expect(await reads.get(at)).toBeUndefined();

    const profiles = warmReads({ rememberAbsent: false });
    const created = key();
    expect(await profiles.get(created)).toBeUndefined();
    await table.put({ Item: { ...created, value: "created" } });
    expect((await profiles.get(created))?.value).toBe("created");
  });
});
