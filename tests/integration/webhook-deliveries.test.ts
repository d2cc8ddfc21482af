import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { systemActor } from "#core/auth/actor";
import { db, tableName } from "#core/db/client";
import { WebhookDeliveryEntity } from "#core/db/entities/webhooks";
import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { ValidationError } from "#core/errors";
import { WebhookDeliveries } from "#core/webhooks/deliveries";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import { environmentNames } from "#stacks/definitions";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { startReceiver, verified, type Receiver } from "#tests/helpers/webhooks";

let receiver: Receiver;
beforeAll(async () => {
  applyStackEnv();
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const stageSettings = [environmentNames.webhookRequireHttps, environmentNames.webhookAllowPrivate];
const localSettings = Object.fromEntries(stageSettings.map((name) => [name, process.env[name]]));
afterEach(() => {
  // Back to the local stack's settings (loopback receivers over http), whatever a test set.
  for (const name of stageSettings) {
    if (localSettings[name] === undefined) delete process.env[name];
    else process.env[name] = localSettings[name];
  }
});

describe("endpoint URLs in a deployed stage", () => {
  it("must be https and public: http, loopback, private and link-local targets are refused with the field named", async () => {
    const org = await newOrganization(); // first: it applies the local stack's environment, which relaxes both settings
    process.env[environmentNames.webhookRequireHttps] = "true";
    process.env[environmentNames.webhookAllowPrivate] = "false";
    const actor = systemActor(org.organizationId);
    for (const url of [
      "http://crm.example.com/hooks",
      "https://127.0.0.1/hooks",
      "https://localhost/hooks",
      "https://10.1.2.3/hooks",
      "https://[::1]/hooks",
      "https://169.254.169.254/latest",
    ]) {
      const refused = await WebhookEndpoints.create(actor, { url }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused, url).toBeInstanceOf(ValidationError);
      expect((refused as ValidationError).errors[0]).toMatchObject({ pointer: "/url" });
    }
    expect((await WebhookEndpoints.create(actor, { url: "https://crm.example.com/hooks" })).endpoint.url).toBe(
      "https://crm.example.com/hooks",
    );
  });
});

/** Puts a delivered ping back as "attempt 1 failed, attempt 2 due at `dueAt`", as a long retry wait leaves it. */
async function awaitingLongRetry(
  org: TestOrganization,
  endpointId: string,
  messageId: string,
  dueAt: string,
): Promise<number> {
  const { Attributes } = await table.update({
    ...WebhookDeliveryEntity.update(
      { organizationId: org.organizationId, endpointId, messageId },
      { status: "Pending", nextAttempt: 2, nextAttemptAt: dueAt, retryDueAt: dueAt },
      { remove: ["finishedAt"] },
    ),
    ReturnValues: "ALL_NEW",
  });
  return Number(Attributes!.generation);
}

async function pinged(org: TestOrganization): Promise<{ endpointId: string; secret: string; messageId: string }> {
  const { endpoint, secret } = await WebhookEndpoints.create(systemActor(org.organizationId), { url: receiver.url });
  const { messageId } = await WebhookDeliveries.ping(systemActor(org.organizationId), endpoint.id);
  await receiver.waitFor((received) => received.some((delivery) => delivery.headers["webhook-id"] === messageId));
  await expect.poll(async () => (await deliveryItem(org, endpoint.id, messageId))?.status).toBe("Delivered");
  return { endpointId: endpoint.id, secret, messageId };
}

async function deliveryItem(org: TestOrganization, endpointId: string, messageId: string) {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.webhookDelivery(org.organizationId, endpointId, messageId),
      ConsistentRead: true,
    }),
  );
  return Item;
}

describe("long retry waits", () => {
  it("a retry due later than an SQS delay allows is published by the schedule once its time comes, once, with the same webhook-id", async () => {
    const org = await newOrganization();
    const { endpointId, secret, messageId } = await pinged(org);
    await awaitingLongRetry(org, endpointId, messageId, new Date(Date.now() + 3600_000).toISOString());
    expect(await WebhookDeliveries.publishDue(new Date(), org.organizationId)).toBe(0);

    expect(await WebhookDeliveries.publishDue(new Date(Date.now() + 3600_000 + 1000), org.organizationId)).toBe(1);
    expect(await WebhookDeliveries.publishDue(new Date(Date.now() + 3600_000 + 1000), org.organizationId)).toBe(0);
    const again = (
      await receiver.waitFor(
        (received) => received.filter((delivery) => delivery.headers["webhook-id"] === messageId).length === 2,
      )
    ).filter((delivery) => delivery.headers["webhook-id"] === messageId);
    expect(verified(secret, again[1]!).id).toBe(messageId);
    await expect.poll(async () => (await deliveryItem(org, endpointId, messageId))?.status).toBe("Delivered");
    expect((await deliveryItem(org, endpointId, messageId))!.gsi3pk).toBeUndefined();
  });

  it("a delivery the queue gives up on ends Failed, logged as an Internal failed attempt", async () => {
    const org = await newOrganization();
    const { endpointId, messageId } = await pinged(org);
    const generation = await awaitingLongRetry(
      org,
      endpointId,
      messageId,
      new Date(Date.now() + 3600_000).toISOString(),
    );
    await WebhookDeliveries.abandon(
      org.organizationId,
      { endpointId, messageId, generation, attempt: 2 },
      new Error("DynamoDB throttled"),
    );
    expect((await deliveryItem(org, endpointId, messageId))!.status).toBe("Failed");
    const log = await WebhookDeliveries.attempts(systemActor(org.organizationId), endpointId, {});
    expect(log.items[0]).toMatchObject({
      messageId,
      succeeded: false,
      errorKind: "Internal",
      errorMessage: "Delivery gave up: DynamoDB throttled",
    });
  });
});

describe("the fan-out's read of an organization's endpoints (issue 27: once a second per warm instance)", () => {
  it("an endpoint created after the fan-out read none is in its next read once its creation has answered, and so is a change", async () => {
    const org = await newOrganization();
    const actor = systemActor(org.organizationId);
    expect(await WebhookEndpoints.forFanOut(org.organizationId)).toEqual([]);
    const { endpoint } = await WebhookEndpoints.create(actor, {
      url: receiver.url,
      enabledEventTypes: ["lead.received"],
    });
    expect((await WebhookEndpoints.forFanOut(org.organizationId)).map(({ id }) => id)).toEqual([endpoint.id]);
    await WebhookEndpoints.update(actor, endpoint.id, { url: receiver.url, enabled: false });
    expect((await WebhookEndpoints.forFanOut(org.organizationId)).map(({ enabled }) => enabled)).toEqual([false]);
    await WebhookEndpoints.remove(actor, endpoint.id);
    expect(await WebhookEndpoints.forFanOut(org.organizationId)).toEqual([]);
  });
});
