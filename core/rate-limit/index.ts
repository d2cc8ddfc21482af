import { table, isConditionFailed } from "#core/db/items";
import { config } from "#core/config";
import { entities, keys, type RateLimitPartition } from "#core/db/keys";

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
   * Whole seconds (≥ 0): for an admitted request, until the current window ends;
   * for a refused one, until a request would be admitted again (Retry-After).
   */
  resetSeconds: number;
  partition: RateLimitPartition;
}

/**
 * Counts one request against a partition with a sliding-window counter shared
 * by every Lambda instance. The estimate of the rolling 60 s is the current
 * fixed window's hits plus the previous window's final hits weighted by the
 * share of the previous window still inside the rolling interval; a request is
 * admitted while that estimate stays under the limit. A fixed window alone
 * admitted twice the limit in a few seconds across a boundary.
 *
 * Still one write per request: a conditional atomic increment of the current
 * window, so under any concurrency at most `limit` requests of a window pass.
 * The previous window's count is immutable once it ended, so each warm instance
 * reads it once per window and partition (in parallel with the first write) and
 * then folds it into the write's condition.
 *
 * `now` is injectable so the boundary arithmetic is testable without waiting.
 */
export async function consumeRateLimit(partition: RateLimitPartition, now = Date.now()): Promise<RateLimitDecision> {
  const limit = rateLimitPolicy.limit;
  const windowMs = rateLimitPolicy.windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const windowEnd = windowStart + windowMs;
  // Share of the previous window still inside the rolling interval that ends now.
  const previousWeight = (windowEnd - now) / windowMs;
  const previous = previousWindowHits(partition, windowStart - windowMs);
  const known = previous.value;
  // With the previous count known, the condition alone decides exactly; otherwise the write caps at the limit and the check below completes it.
  const allowance = known === undefined ? limit : Math.ceil(limit - known * previousWeight);

  const [hits, previousHits] = await Promise.all([incrementIfUnder(partition, windowStart, windowEnd, allowance), previous.promise]);
  const weightedPrevious = previousHits * previousWeight;
  if (hits !== undefined && hits - 1 + weightedPrevious < limit) {
    return { allowed: true, limit, partition, remaining: Math.max(0, Math.floor(limit - hits - weightedPrevious)), resetSeconds: wholeSeconds(windowEnd - now) };
  }
  // Counted before the previous window was known, but over the sliding limit: give the slot back.
  if (hits !== undefined) await decrement(partition, windowStart);
  const current = hits === undefined ? Math.max(allowance, 0) : hits - 1;
  return { allowed: false, limit, partition, remaining: 0, resetSeconds: secondsUntilAdmitted(current, previousHits, windowStart, windowMs, now) };
}

/**
 * When the estimate falls under the limit again with no further request: within
 * this window once the previous window's weight has decayed enough, else early
 * in the next window as this window's hits start to decay.
 */
function secondsUntilAdmitted(current: number, previousHits: number, windowStart: number, windowMs: number, now: number): number {
  const limit = rateLimitPolicy.limit;
  const admittedAt =
    current < limit && previousHits > 0
      ? windowStart + windowMs * (1 - (limit - current) / previousHits)
      : windowStart + windowMs + (current > 0 ? windowMs * Math.max(0, 1 - limit / current) : 0);
  // At `admittedAt` itself the estimate equals the limit: a retry must come strictly after it.
  return Math.max(0, Math.floor((admittedAt - now) / 1000) + 1);
}

const wholeSeconds = (ms: number): number => Math.max(0, Math.ceil(ms / 1000));

/** The conditional ADD: the window's hit count after this request, or undefined when the count already reached `allowance`. */
async function incrementIfUnder(partition: RateLimitPartition, windowStart: number, windowEnd: number, allowance: number): Promise<number | undefined> {
  if (allowance <= 0) return undefined;
  try {
    const { Attributes } = await table.update({
      Key: keys.rateLimitWindow(partition, windowStart),
      UpdateExpression: "ADD hits :one SET entity = :entity, expiresAt = :expiresAt",
      ConditionExpression: "attribute_not_exists(hits) OR hits < :allowance",
      ExpressionAttributeValues: {
        ":one": 1,
        ":allowance": allowance,
        ":entity": entities.rateLimitWindow,
        // Kept through the next window, which reads it as its previous window.
        ":expiresAt": Math.ceil((windowEnd + 2 * (windowEnd - windowStart)) / 1000),
      },
      ReturnValues: "UPDATED_NEW",
    });
    return Number(Attributes?.hits ?? allowance);
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

async function decrement(partition: RateLimitPartition, windowStart: number): Promise<void> {
  await table.update({
    Key: keys.rateLimitWindow(partition, windowStart),
    UpdateExpression: "ADD hits :minusOne",
    ExpressionAttributeValues: { ":minusOne": -1 },
  });
}

/**
 * Final hit counts of ended windows, per warm instance. Concurrent first
 * requests of a window share one read; the map is bounded, oldest out first.
 */
const endedWindows = new Map<string, { value?: number; promise: Promise<number> }>();
const maxEndedWindows = 10_000;

function previousWindowHits(partition: RateLimitPartition, previousStart: number): { value?: number; promise: Promise<number> } {
  const key = keys.rateLimitWindow(partition, previousStart);
  const cacheKey = `${key.pk}|${key.sk}`;
  const cached = endedWindows.get(cacheKey);
  if (cached) return cached;
  const entry: { value?: number; promise: Promise<number> } = {
    promise: table
      .get({ Key: key, ProjectionExpression: "hits", ConsistentRead: true })
      .then(({ Item }) => (entry.value = Number(Item?.hits ?? 0)))
      .catch((error: unknown) => {
        endedWindows.delete(cacheKey); // a failed read is retried by the next request
        throw error;
      }),
  };
  if (endedWindows.size >= maxEndedWindows) endedWindows.delete(endedWindows.keys().next().value!);
  endedWindows.set(cacheKey, entry);
  return entry;
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
