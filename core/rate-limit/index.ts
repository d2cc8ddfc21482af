import { table, isConditionFailed } from "#core/db/items";
import { config } from "#core/config";
import { RateLimitAllowanceEntity } from "#core/db/entities/rate-limit";
import { where } from "#core/db/expression";
import type { Key, RateLimitPartition } from "#core/db/keys";

/**
 * Spec section 8: 300 requests per 60 s for each partition. `RATE_LIMIT_REQUESTS`
 * raises it for a stage whose operator arranged higher throughput (and for benchmarks).
 */
export const rateLimitPolicy = {
  get limit(): number {
    return config.rateLimitRequests;
  },
  windowSeconds: 60,
};

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /**
   * Whole seconds (≥ 0): for an admitted request, until the oldest request still counted leaves the rolling window
   * (when `remaining` next grows); for a refused one, until a request would be admitted again (Retry-After).
   */
  resetSeconds: number;
  partition: RateLimitPartition;
}

/**
 * The limit holds for every rolling 60 s, counted in one-second buckets: a request is counted in the second it
 * reached the limiter, and a second's requests count until the whole of that second has left the rolling window,
 * so every 60 s interval lies within the 61 buckets checked (at most one second stricter than a perfect log).
 */
const bucketMs = 1000;
const bucketsPerWindow = rateLimitPolicy.windowSeconds + 1;
/** Buckets older than the window kept anyway, so an instance whose clock runs a little behind still sees them. */
const clockSkewBuckets = 5;

/**
 * Counts one request against a partition, exactly for every rolling 60 s and across every Lambda instance, at a
 * fraction of a write per request.
 *
 * The partition's allowance is one item: the requests admitted per one-second bucket over the last 61 s, and a
 * version. A warm instance leases a block of the allowance for the current second with one conditional write on
 * that version (a concurrent lease elsewhere makes it read the item and try again), then admits from its block in
 * memory. A block is only good in the second it was leased for, so a request is always counted in its own second;
 * its unused slots are given back by the instance's next lease (in the same write), or stay counted until they age
 * out of the window when no next lease comes. A block covers the requests waiting for it plus a forecast of the
 * instance's own traffic for the rest of the second (its last second's rate, or doubling within the second), and
 * the forecast part is at most an eighth of the allowance left: with little left, an instance leases only what
 * is waiting, so a small limit (or the last slots of a window) is never stranded in an idle instance.
 *
 * `now` is injectable so window arithmetic is testable without waiting.
 */
export async function consumeRateLimit(partition: RateLimitPartition, now = Date.now()): Promise<RateLimitDecision> {
  if (!counting)
    return {
      allowed: true,
      limit: rateLimitPolicy.limit,
      remaining: rateLimitPolicy.limit,
      resetSeconds: 0,
      partition,
    };
  const lease = leaseOf(partition);
  if (lease.waiting.length === 0 && lease.bucket === bucketOf(now) && lease.available > 0) return admit(lease, now);
  return new Promise<RateLimitDecision>((resolve, reject) => {
    lease.waiting.push({ now, resolve, reject });
    if (!lease.leasing) void serveWaiting(lease);
  });
}

let counting = true;
/**
 * Benchmarks only (`npm run bench -- foundation`): turns counting off in this process, to measure the limiter's
 * cost against the same run without it. Nothing in a deployed function calls it.
 */
export function countRateLimits(on: boolean): void {
  counting = on;
}

/** The partition's allowance item: admitted (leased) requests per bucket, and the version every lease conditions on. */
interface Allowance {
  version: number;
  buckets: Map<number, number>;
  /** When this copy was written or read (ms): a refusal trusts it for one bucket, then reads again. */
  seenAt: number;
}

interface Waiter {
  now: number;
  resolve: (decision: RateLimitDecision) => void;
  reject: (error: unknown) => void;
}

/** One warm instance's view of one partition: its block for the current bucket and the requests waiting for the next. */
interface Lease {
  partition: RateLimitPartition;
  key: Key;
  stored?: Allowance;
  /** The bucket the block was leased for, and its slots not yet used. */
  bucket: number;
  available: number;
  /** This instance's admissions in `admittedBucket` and in the bucket before it: the forecast. */
  admittedBucket: number;
  admitted: number;
  admittedBefore: number;
  waiting: Waiter[];
  leasing: boolean;
  /** What admitted requests answer (remaining, reset), as of `stored` seen from `bucket`. */
  view?: { stored: Allowance; bucket: number; limit: number; headroom: number; oldest: number };
}

const leases = new Map<string, Lease>();
const maxLeases = 10_000;

function leaseOf(partition: RateLimitPartition): Lease {
  const key = RateLimitAllowanceEntity.key(partition);
  const cacheKey = `${key.pk}|${key.sk}`;
  let lease = leases.get(cacheKey);
  if (!lease) {
    // Oldest out first; an evicted block's unused slots stay counted until they age out (conservative).
    if (leases.size >= maxLeases) leases.delete(leases.keys().next().value!);
    lease = {
      partition,
      key,
      bucket: -1,
      available: 0,
      admittedBucket: -1,
      admitted: 0,
      admittedBefore: 0,
      waiting: [],
      leasing: false,
    };
    leases.set(cacheKey, lease);
  }
  return lease;
}

const bucketOf = (now: number): number => Math.floor(now / bucketMs);

/** Leases blocks for the waiting requests, one bucket's requests at a time, in arrival order. */
async function serveWaiting(lease: Lease): Promise<void> {
  lease.leasing = true;
  // Requests arriving in the same turn of the event loop (a burst) share this lease.
  await Promise.resolve();
  try {
    while (lease.waiting.length > 0) {
      const bucket = bucketOf(lease.waiting[0]!.now);
      const batch: Waiter[] = [];
      while (lease.waiting.length > 0 && bucketOf(lease.waiting[0]!.now) === bucket) batch.push(lease.waiting.shift()!);
      const fromBlock = lease.bucket === bucket ? Math.min(lease.available, batch.length) : 0;
      for (const waiter of batch.splice(0, fromBlock)) waiter.resolve(admit(lease, waiter.now));
      if (batch.length === 0) continue;
      try {
        await leaseBlock(lease, bucket, batch.length, batch[0]!.now);
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
        continue;
      }
      for (const waiter of batch)
        waiter.resolve(
          lease.bucket === bucket && lease.available > 0 ? admit(lease, waiter.now) : refuse(lease, waiter.now),
        );
    }
  } finally {
    lease.leasing = false;
  }
}

/**
 * Leases up to `needed` slots plus the forecast for `bucket`, giving back the unused slots of the previous block in
 * the same write. Leaves the block in `lease` (possibly smaller than needed, possibly none).
 */
async function leaseBlock(lease: Lease, bucket: number, needed: number, now: number): Promise<void> {
  const limit = rateLimitPolicy.limit;
  for (let attempt = 0; ; attempt++) {
    // A full window by a copy read or written this second is trusted: refusals cost no write and at most one read a second.
    if (!lease.stored || (headroom(lease.stored.buckets, bucket, limit) <= 0 && now - lease.stored.seenAt > bucketMs)) {
      lease.stored = await readAllowance(lease.partition, now);
    }
    const buckets = new Map(lease.stored.buckets);
    const giveBack = lease.bucket !== bucket ? lease.available : 0;
    if (giveBack > 0 && buckets.has(lease.bucket))
      buckets.set(lease.bucket, Math.max(0, buckets.get(lease.bucket)! - giveBack));
    const left = headroom(buckets, bucket, limit);
    const grant = Math.min(left, needed + Math.min(forecast(lease, bucket, now), Math.floor(left / 8)));
    if (grant <= 0 && giveBack === 0) {
      if (lease.bucket !== bucket) Object.assign(lease, { bucket, available: 0 });
      return;
    }
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + Math.max(grant, 0));
    for (const old of buckets.keys()) if (old < bucket - bucketsPerWindow - clockSkewBuckets) buckets.delete(old);
    const written = await writeAllowance(lease.partition, lease.stored.version, buckets, now);
    if (written) {
      lease.stored = written;
      Object.assign(lease, { bucket, available: Math.max(grant, 0) });
      return;
    }
    // Another instance leased since this copy: read its lease and decide again (bounded by the number of instances).
    lease.stored = await readAllowance(lease.partition, now);
    if (attempt > 50)
      throw new Error(`The rate-limit allowance of ${lease.key.pk} ${lease.key.sk} kept changing under 50 leases.`);
  }
}

/** The instance's own expected requests for the rest of `bucket`: last second's rate, or what this second already took. */
function forecast(lease: Lease, bucket: number, now: number): number {
  const before =
    lease.admittedBucket === bucket ? lease.admittedBefore : lease.admittedBucket === bucket - 1 ? lease.admitted : 0;
  const already = lease.admittedBucket === bucket ? lease.admitted : 0;
  const restOfBucket = ((bucket + 1) * bucketMs - now) / bucketMs;
  return Math.max(Math.ceil(before * restOfBucket), already);
}

/**
 * Slots a request in `bucket` may still take: the limit minus the fullest rolling window that contains `bucket`
 * (windows ending later matter too when another instance's clock runs ahead).
 */
function headroom(buckets: Map<number, number>, bucket: number, limit: number): number {
  let fullest = 0;
  for (let end = bucket; end < bucket + bucketsPerWindow; end++) fullest = Math.max(fullest, windowCount(buckets, end));
  return limit - fullest;
}

/** Requests counted in the rolling window whose newest bucket is `end`. */
function windowCount(buckets: Map<number, number>, end: number): number {
  let count = 0;
  for (const [bucket, hits] of buckets) if (bucket > end - bucketsPerWindow && bucket <= end) count += hits;
  return count;
}

function admit(lease: Lease, now: number): RateLimitDecision {
  const bucket = bucketOf(now);
  lease.available--;
  if (lease.admittedBucket !== bucket) {
    lease.admittedBefore = lease.admittedBucket === bucket - 1 ? lease.admitted : 0;
    lease.admittedBucket = bucket;
    lease.admitted = 0;
  }
  lease.admitted++;
  const limit = rateLimitPolicy.limit;
  const view = windowView(lease, bucket, limit);
  // This instance's unused slots are leased but not yet admitted: they are still there for its next requests.
  const remaining = Math.max(0, view.headroom + lease.available);
  return {
    allowed: true,
    limit,
    remaining,
    resetSeconds: secondsUntil((view.oldest + bucketsPerWindow) * bucketMs, now),
    partition: lease.partition,
  };
}

/** The window as the stored copy shows it from `bucket`, computed once per copy and bucket (not per admitted request). */
function windowView(lease: Lease, bucket: number, limit: number): NonNullable<Lease["view"]> {
  const stored = lease.stored!;
  if (lease.view?.stored === stored && lease.view.bucket === bucket && lease.view.limit === limit) return lease.view;
  const counted = [...stored.buckets]
    .filter(([at, hits]) => hits > 0 && at > bucket - bucketsPerWindow && at <= bucket)
    .map(([at]) => at);
  lease.view = {
    stored,
    bucket,
    limit,
    headroom: headroom(stored.buckets, bucket, limit),
    oldest: Math.min(...counted, bucket),
  };
  return lease.view;
}

/** Retry-After: the start of the first bucket whose rolling window leaves room for one more request. */
function refuse(lease: Lease, now: number): RateLimitDecision {
  const limit = rateLimitPolicy.limit;
  const bucket = bucketOf(now);
  const buckets = lease.stored?.buckets ?? new Map<number, number>();
  let retryBucket = bucket + 1;
  while (retryBucket < bucket + bucketsPerWindow && headroom(buckets, retryBucket, limit) <= 0) retryBucket++;
  return {
    allowed: false,
    limit,
    remaining: 0,
    resetSeconds: secondsUntil(retryBucket * bucketMs, now),
    partition: lease.partition,
  };
}

const secondsUntil = (at: number, now: number): number => Math.max(0, Math.ceil((at - now) / 1000));

async function readAllowance(partition: RateLimitPartition, now: number): Promise<Allowance> {
  const item = await RateLimitAllowanceEntity.get(partition, { consistent: true, attributes: ["version", "buckets"] });
  return toAllowance(item, now);
}

function toAllowance(item: Record<string, unknown> | undefined, now: number): Allowance {
  const stored = (item?.buckets ?? {}) as Record<string, number>;
  return {
    version: Number(item?.version ?? 0),
    buckets: new Map(Object.entries(stored).map(([bucket, hits]) => [Number(bucket), Number(hits)])),
    seenAt: now,
  };
}

/** The new allowance if `version` was still the stored one, else undefined (another instance leased meanwhile). */
async function writeAllowance(
  partition: RateLimitPartition,
  version: number,
  buckets: Map<number, number>,
  now: number,
): Promise<Allowance | undefined> {
  const newest = Math.max(...buckets.keys());
  const item = {
    // Never a version used before, even by an item TTL removed and leases recreated: a copy read before that cannot match.
    version: Math.max(version + 1, Date.now()),
    buckets: Object.fromEntries([...buckets].filter(([, hits]) => hits > 0)),
    // An idle partition's item goes away once its newest bucket has left the window.
    expiresAt: Math.ceil(((newest + bucketsPerWindow + clockSkewBuckets) * bucketMs) / 1000) + 60,
  };
  try {
    // Over the version read (0: none was stored, so only an item nobody created since).
    const unchanged = where.equals("version", version);
    await table.put(
      RateLimitAllowanceEntity.putAt(partition, item, {
        condition: version === 0 ? where.any(where.new(), unchanged) : unchanged,
      }),
    );
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
  return toAllowance(item, now);
}

/** Human name of a partition for the 429 `detail`. */
export function describePartition(partition: RateLimitPartition): string {
  switch (partition.kind) {
    case "business":
      return "business";
    case "intake":
      return "business intake";
    case "user":
      return "user";
    case "ip":
      return "IP address";
  }
}
