import { getItem, type Item, type Key, type PlannedRead } from "#core/db/items";

/** How long a warm instance answers a rarely-changing item from memory (docs/decisions.md "Warm reads"). */
export const warmReadMs = 30_000;

/**
 * Items that change rarely and are read on every message and lead (messaging
 * settings, the organization's profile; not prices, which are money): one read per warm
 * instance every `warmReadMs`, and concurrent reads of one key share the call.
 * The instance that writes such an item forgets it at once (`forget`); other
 * instances see the change within `warmReadMs`, like a cached source key. An
 * absent item is remembered too (defaults apply) unless `rememberAbsent` is false.
 */
/* @__NO_SIDE_EFFECTS__ */
export function warmReads(options: { ttlMs?: number; maxEntries?: number; rememberAbsent?: boolean } = {}) {
  const ttlMs = options.ttlMs ?? warmReadMs;
  const maxEntries = options.maxEntries ?? 1000;
  const entries = new Map<string, { item: Promise<Item | undefined>; expiresAt: number }>();
  let forgotten = 0;
  const id = (key: Key) => `${key.pk}\u0000${key.sk}`;
  return {
    get(key: Key): Promise<Item | undefined> {
      const entry = entries.get(id(key));
      if (entry && entry.expiresAt > Date.now()) return entry.item;
      entries.delete(id(key));
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      const item = getItem(key);
      entries.set(id(key), { item, expiresAt: Date.now() + ttlMs });
      // A failed read is not remembered: the next caller asks again. Nor is an absent item when it is about to be created.
      const drop = () => entries.get(id(key))?.item === item && entries.delete(id(key));
      item.then((found) => found === undefined && options.rememberAbsent === false && drop(), drop);
      return item;
    },
    /**
     * The item as a read others batch with theirs (`readTogether`): nothing to read while warm; otherwise the batch
     * reads it and its answer is remembered, so a `get` after the batch makes no call of its own.
     */
    planned(key: Key): PlannedRead<void> {
      const entry = entries.get(id(key));
      if (entry && entry.expiresAt > Date.now()) return { keys: [], from: () => undefined };
      const asked = forgotten;
      return {
        keys: [key],
        from: ([item]) => {
          // Not when this instance wrote (and forgot) the item while the batch was out: its answer may be older.
          if (forgotten !== asked || (item === undefined && options.rememberAbsent === false)) return;
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
          entries.set(id(key), { item: Promise.resolve(item), expiresAt: Date.now() + ttlMs });
        },
      };
    },
    forget(key: Key): void {
      forgotten++;
      entries.delete(id(key));
    },
  };
}
