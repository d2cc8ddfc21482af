import { describe, expect, it } from "vitest";
import { WebhookDeliveryEntity } from "#core/db/entities/webhooks";
import { dueWorkShardOf } from "#core/db/due";
import { computed } from "#core/db/expression";
import { spelled } from "#tests/helpers/expressions";

const delivery = { organizationId: "o1", endpointId: "ep", messageId: "msg_01ABC" };

describe("the WebhookDelivery entity keeps its retry entry in step with retryDueAt", () => {
  it("a waiting retry puts the delivery in the due index of its message's shard, at its time", () => {
    const update = WebhookDeliveryEntity.update(delivery, { retryDueAt: "2026-01-01T00:00:00.000Z", nextAttempt: 2 });
    expect(spelled(update)).toBe(
      'SET retryDueAt = "2026-01-01T00:00:00.000Z", nextAttempt = 2, ' +
        `gsi3pk = "DUEWEBHOOKS#${dueWorkShardOf("msg_01ABC")}", gsi3sk = "2026-01-01T00:00:00.000Z#o1#ep:msg_01ABC"`,
    );
  });

  it("a claimed or finished delivery leaves the index; a change of other fields leaves it alone", () => {
    expect(spelled(WebhookDeliveryEntity.update(delivery, { attempts: 2, retryDueAt: null }))).toBe(
      "SET attempts = 2, retryDueAt = null REMOVE gsi3pk, gsi3sk",
    );
    expect(spelled(WebhookDeliveryEntity.update(delivery, { status: "Delivered" }))).toBe('SET status = "Delivered"');
  });

  it("computed values are left to DynamoDB: a new round bumps the generation, createdAt is kept once set", () => {
    const update = WebhookDeliveryEntity.update(delivery, {
      generation: computed.increment(),
      createdAt: computed.ifAbsent("2026-01-01T00:00:00.000Z"),
      previous: computed.copyOf("secret"),
    });
    expect(spelled(update)).toBe(
      'SET generation = if_not_exists(generation, 0) + 1, createdAt = if_not_exists(createdAt, "2026-01-01T00:00:00.000Z"), previous = secret',
    );
  });
});
