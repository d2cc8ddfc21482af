import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { EventEntity } from "#core/db/entities/events";
import { MessageEntity } from "#core/db/entities/messaging";
import { nullWhenAbsent, storedNames } from "#core/messaging/store";
import { addNumber, events, eventsWhen, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

async function stored(key: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item!;
}

async function restore(item: Record<string, unknown>): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: item }));
}

/**
 * Since issue 27 a message item stores no nulls (nor its usual `false`s, nor its organization) and a message's event leaves out what every
 * message event holds. Items stored before carry them: the API answers both the same.
 */
describe("message and event items stored before issue 27 read as the ones stored since", () => {
  applyStackEnv();

  it("a delivered message and its events, rewritten with the fields they used to store, answer the same", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: randomNumber(), body: "stored twice" }, org.apiKey);
    const id = accepted.body.id as string;
    const delivered = await waitForMessage(org, id, (message) => message.status === "Delivered");
    const query = { eventType: "MessageDelivered" };
    const [deliveredEvent] = await eventsWhen(org, query, (items) => items.length === 1);
    expect(deliveredEvent).toMatchObject({ timelineCategory: "Message", trafficType: "RealLead", media: [] });

    const messageKey = MessageEntity.key({ organizationId: org.organizationId, id });
    const message = await stored(messageKey);
    // Only what is stored as given stays null (`consentBasis`: no basis was needed).
    expect(Object.keys(message).filter((field) => message[field] === null)).toEqual([storedNames.consentBasis]);
    // Longer fields under their stored names (eighth pass); items stored before hold the long ones (restored below).
    expect(message).toMatchObject({ [storedNames.deliveredAt!]: delivered.deliveredAt, status: "Delivered" });
    for (const field of Object.keys(storedNames)) expect(message).not.toHaveProperty(field);
    const longNames = new Map(Object.entries(storedNames).map(([field, name]) => [name, field]));
    for (const field of nullWhenAbsent) expect(message).not.toHaveProperty(field, null);
    expect(message).not.toHaveProperty("wasManuallyOverridden");
    expect(message).not.toHaveProperty("organizationId");
    const eventKey = EventEntity.key({ organizationId: org.organizationId, id: deliveredEvent.id });
    const event = await stored(eventKey);
    expect(event).not.toHaveProperty("timelineCategory");
    expect(event).not.toHaveProperty("outboundPhoneNumberId");

    await restore({
      ...Object.fromEntries([...nullWhenAbsent].map((field) => [field, null])),
      wasManuallyOverridden: false,
      quietHoursOverridden: false,
      organizationId: org.organizationId,
      ...Object.fromEntries(Object.entries(message).map(([name, value]) => [longNames.get(name) ?? name, value])),
    });
    await restore({
      ...event,
      timelineCategory: "Message",
      timelineType: "Message",
      relatedEntityType: "Message",
      trafficType: "RealLead",
      media: [],
      outboundPhoneNumberId: deliveredEvent.outboundPhoneNumberId,
    });
    expect(await waitForMessage(org, id, () => true)).toEqual(delivered);
    expect(await events(org, query)).toEqual([deliveredEvent]);
  });
});
