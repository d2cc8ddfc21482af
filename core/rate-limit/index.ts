import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "#core/config";
import { db, tableName } from "#core/db/client";
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
  /** Whole seconds until the current window ends (≥ 0). */
  resetSeconds: number;
  partition: RateLimitPartition;
}

/**
 * Counts one request against a partition in a fixed window shared by every
 * Lambda instance: a conditional atomic increment, so under any concurrency at
 * most `limit` requests of a window are admitted.
 */
export async function consumeRateLimit(partition: RateLimitPartition, now = Date.now()): Promise<RateLimitDecision> {
  const windowMs = rateLimitPolicy.windowSeconds * 1000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  const resetSeconds = Math.max(0, Math.ceil((windowStart + windowMs - now) / 1000));
  const decision = { limit: rateLimitPolicy.limit, resetSeconds, partition };
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.rateLimitWindow(partition, windowStart),
        UpdateExpression: "ADD hits :one SET entity = :entity, expiresAt = :expiresAt",
        ConditionExpression: "attribute_not_exists(hits) OR hits < :limit",
        ExpressionAttributeValues: {
          ":one": 1,
          ":limit": rateLimitPolicy.limit,
          ":entity": entities.rateLimitWindow,
          ":expiresAt": Math.ceil((windowStart + 2 * windowMs) / 1000),
        },
        ReturnValues: "UPDATED_NEW",
      }),
    );
    const hits = Number(Attributes?.hits ?? rateLimitPolicy.limit);
    return { ...decision, allowed: true, remaining: Math.max(0, rateLimitPolicy.limit - hits) };
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return { ...decision, allowed: false, remaining: 0 };
    throw error;
  }
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
