/**
 * Reading several partitions as one list (issue 27): an organization-level listing is written across N shards of an
 * index (`ORG#o#LEADS#0` … `ORG#o#LEADS#7`) so no partition key takes the organization's whole write rate, and read
 * back by querying every shard and merging their entries by the index sort key. Each shard keeps its own position,
 * so a page resumes every shard exactly where its last returned (or skipped) entry was, and a shard is read at most
 * `fetchLimit` entries per round trip: a page of N shards reads at most N × (page + 1) keys, never the whole list.
 *
 * The reader is storage-agnostic (it is given how to read one shard's next chunk), so the merge is unit-tested on
 * its own (tests/unit/merge.test.ts) and core/db/query.ts plugs DynamoDB Query in.
 */

export type Entry = Record<string, unknown>;
export type ShardKey = Record<string, unknown>;

/** Where a shard stands: at a key (resume after it), not begun (`null`), or read to its end (`false`). */
export type Position = ShardKey | null | false;

/** One chunk of a shard read from `after` (exclusive): its entries in key order, and the key to read on from. */
export type ReadChunk = (
  shard: number,
  after: ShardKey | undefined,
  limit: number,
) => Promise<{ entries: Entry[]; scanned: number; lastKey?: ShardKey }>;

interface ShardState {
  /** Where the next read starts (DynamoDB's LastEvaluatedKey), undefined when not begun. */
  after: ShardKey | undefined;
  exhausted: boolean;
  buffer: Entry[];
  /** Entries read from the shard, and how many of them the caller has taken. */
  received: number;
  taken: number;
}

/** UTF-8 byte order, as DynamoDB orders string sort keys (JavaScript's own order differs above U+FFFF). */
export function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

/**
 * Entries of N key-ordered shards in one order (`mergeBy`, ascending when `forward`), read lazily: a shard is read
 * again only when its buffer is empty and its head is needed to decide what comes next. `read` counts the entries
 * evaluated (a server-side filter's dropped ones included), which is what a caller's read budget limits.
 */
export class MergedReader {
  private readonly shards: ShardState[];
  read = 0;

  constructor(
    private readonly readChunk: ReadChunk,
    private readonly order: { mergeBy: string; forward: boolean },
    start: readonly Position[],
  ) {
    this.shards = start.map((position) => ({
      after: position || undefined,
      exhausted: position === false,
      buffer: [],
      received: 0,
      taken: 0,
    }));
  }

  /**
   * The next entry in merged order and its shard; `undefined` at the end of every shard, or `"budget"` when a
   * shard must be read to decide and `budget` entries are read already.
   */
  async next(fetchLimit: number, budget: number): Promise<{ entry: Entry; shard: number } | undefined | "budget"> {
    for (;;) {
      const empty = this.shards.filter((shard) => !shard.exhausted && shard.buffer.length === 0);
      if (empty.length === 0) break;
      if (this.read >= budget) return "budget";
      const share = Math.max(1, Math.min(fetchLimit, Math.floor((budget - this.read) / empty.length)));
      await Promise.all(empty.map((shard) => this.fill(shard, share)));
    }
    let best: number | undefined;
    for (const [index, shard] of this.shards.entries()) {
      if (!shard.buffer.length) continue;
      if (best === undefined || this.before(shard.buffer[0]!, this.shards[best]!.buffer[0]!)) best = index;
    }
    if (best === undefined) return undefined;
    const shard = this.shards[best]!;
    shard.taken++;
    return { entry: shard.buffer.shift()!, shard: best };
  }

  /**
   * Where each shard stands once the caller has handled, of the entries taken, all but `pending` (per shard: taken
   * but not handled, e.g. the match past a full page): a shard whose every entry read is handled stands where its
   * reads reached (past the entries a filter dropped, or at its end); any other at the last entry handled from it.
   */
  positions(lastHandled: readonly Position[], pending: readonly number[] = []): Position[] {
    return this.shards.map((shard, index) => {
      const handledAll = shard.taken - (pending[index] ?? 0) === shard.received && shard.buffer.length === 0;
      if (!handledAll) return lastHandled[index]!;
      return shard.exhausted ? false : (shard.after ?? lastHandled[index]!);
    });
  }

  private before(a: Entry, b: Entry): boolean {
    const compared = byteOrder(String(a[this.order.mergeBy]), String(b[this.order.mergeBy]));
    return this.order.forward ? compared < 0 : compared > 0;
  }

  private async fill(shard: ShardState, limit: number): Promise<void> {
    const index = this.shards.indexOf(shard);
    const chunk = await this.readChunk(index, shard.after, limit);
    this.read += chunk.scanned;
    shard.buffer.push(...chunk.entries);
    shard.received += chunk.entries.length;
    shard.after = chunk.lastKey;
    shard.exhausted = chunk.lastKey === undefined;
  }
}
