import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { EventEntity } from "#core/db/entities/events";
import { eventStoredNames } from "#core/events/index";
import {
  addNumber,
  createLead,
  events,
  eventsWhen,
  randomNumber,
  send,
  waitForMessage,
} from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

async function stored(key: Record<string, unknown>): Promise<Record<string, unknown>> {
  return (await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item!;
}

const longNames = new Map(Object.entries(eventStoredNames).map(([field, name]) => [name, field]));
const times = new Set(["qa", "ga", "sa", "da", "ra", "fa", "ua", "ka", "nr", "sf", "xa"]);

/**
 * An event item as it was stored before issue 27's eighth pass: every field under its long name, its times as ISO
 * text, and what a message's event now leaves out (its description, status and actor fields) stored.
 */
function asBefore(item: Record<string, unknown>, left: Record<string, unknown>): Record<string, unknown> {
  return {
    ...Object.fromEntries(
      Object.entries(item).map(([name, value]) => [
        longNames.get(name) ?? name,
        times.has(name) ? new Date(value as number).toISOString() : value,
      ]),
    ),
    ...left,
  };
}

/**
 * Since issue 27's eighth pass an event item stores its longer fields under short names and its times as numbers, and
 * a message's event leaves out its usual description, status and system actor. Items stored before read the same.
 */
describe("event items stored before issue 27's eighth pass read as the ones stored since", () => {
  applyStackEnv();

  it("a lead's delivered message's events, rewritten as they used to be stored, answer the same", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const to = randomNumber();
    const lead = await createLead(org, to);
    const accepted = await send(org, { leadId: lead.id, body: "stored twice" }, org.apiKey);
    expect(accepted.status).toBe(202);
    const id = accepted.body.id as string;
    await waitForMessage(org, id, (message) => message.status === "Delivered");
    const [delivered] = await eventsWhen(org, { eventType: "MessageDelivered" }, (items) => items.length === 1);
    expect(delivered).toMatchObject({
      description: `SMS to ${to} delivered`,
      status: "Delivered",
      createdBy: "system",
      actorDisplayName: "System",
      leadId: lead.id,
    });
    expect(delivered.deliveredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const before = { all: await events(org), lead: await events(org, { leadId: lead.id }) };

    const key = EventEntity.key({ organizationId: org.organizationId, id: delivered.id });
    const item = await stored(key);
    for (const field of Object.keys(eventStoredNames)) expect(item).not.toHaveProperty(field);
    expect(item).not.toHaveProperty(eventStoredNames.description!);
    expect(item).not.toHaveProperty(eventStoredNames.status!);
    expect(item[eventStoredNames.deliveredAt!]).toBe(Date.parse(delivered.deliveredAt));

    for (const event of before.all) {
      const old = await stored(EventEntity.key({ organizationId: org.organizationId, id: event.id }));
      const left =
        event.eventCategory === "Sms"
          ? {
              description: event.description,
              status: event.status,
              createdBy: event.createdBy,
              actorDisplayName: event.actorDisplayName,
            }
          : {};
      await db().send(new PutCommand({ TableName: tableName(), Item: asBefore(old, left) }));
    }
    const rewritten = await stored(key);
    expect(rewritten).toMatchObject({ description: `SMS to ${to} delivered`, deliveredAt: delivered.deliveredAt });
    expect(await events(org)).toEqual(before.all);
    expect(await events(org, { leadId: lead.id })).toEqual(before.lead);
  });
});
