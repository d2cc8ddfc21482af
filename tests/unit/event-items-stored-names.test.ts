import { describe, expect, it } from "vitest";
import { itemSize } from "#bench/partitions";
import { Transaction } from "#core/db/transact";
import {
  eventAttributes,
  eventItem,
  eventStoredNames,
  messageEventDescription,
  toEventRecord,
  type EventRecord,
} from "#core/events/index";
import type { Message } from "#core/messaging/model";
import { newMessage } from "#core/messaging/messages";
import * as MessagingEvents from "#core/messaging/timeline";
import { messageEventInput, type MessagingEventType } from "#core/messaging/timeline";
import { withCorrelationId } from "#core/observability/index";

const organizationId = "01M8KQ0PRVZF1Y9T8SDWTQH1AD";
const at = (second: number) => `2026-11-29T06:00:0${second}.${100 + second}Z`;

/** An automated SMS of the lead flow with everything its events carry: lead, owner, conversation, campaign, sender pick. */
function automated(body: string, status: Message["status"], fields: Partial<Message> = {}): Message {
  return {
    ...newMessage({
      conversationId: "01M8JYE7MSFG2W8T7STFBDZ1CH",
      leadId: "01M8KQ0T88QE8WX8AVH41NHBXG",
      direction: "Outbound",
      status,
      body,
      media: [],
      toPhoneNumber: "+12125550100",
      createdBy: "automation:01M8KQ0SSFCW00CEQV3MGQW21X",
      campaignId: "automation:01M8KQ0SSFCW00CEQV3MGQW21X",
    }),
    assignedUserId: "01M8KQ0Q30SK441PKDX1QR10J4",
    fromPhoneNumberId: "01M8JYDK7Y79A1XWE4DEAZCCCD",
    fromPhoneNumber: "+12125550142",
    selectionReason: "AreaCodeMatch",
    billingStatus: "Reserved",
    billableAmount: 0.0079,
    queuedAt: at(1),
    ...fields,
  };
}

/** The item and record of a message's event as the lifecycle writes it (in a transaction, with a correlation id). */
function written(message: Message, type: MessagingEventType): { item: Record<string, unknown>; event: EventRecord } {
  const transaction = new Transaction();
  const event = withCorrelationId("1sK0XdRTaPRE3g=", () =>
    MessagingEvents.item(organizationId, messageEventInput(message, type), transaction),
  );
  return { item: transaction.items[0]!.Put!.Item as Record<string, unknown>, event };
}

/** The lead flow's message events, each with the times its status has. */
function flow(body: string, fields: Partial<Message> = {}) {
  const sending = { sendingStartedAt: at(2) };
  const sent = { ...sending, sentAt: at(3) };
  return [
    written(automated(body, "Pending", fields), "MessageAccepted"),
    written(automated(body, "Queued", fields), "MessageQueued"),
    written(automated(body, "Sending", { ...sending, ...fields }), "MessageSending"),
    written(automated(body, "Sent", { ...sent, ...fields }), "MessageSent"),
    written(
      automated(body, "Delivered", { ...sent, deliveredAt: at(4), billingStatus: "Charged", ...fields }),
      "MessageDelivered",
    ),
  ];
}

describe("an event's item stores its longer fields under short names, its times as numbers (issue 27, eighth pass)", () => {
  it("an automated SMS's events with lead, owner, campaign, all under 1 KB: a 100-character body, or a status reason", () => {
    const cases = [
      flow("x".repeat(100)),
      flow("x".repeat(80), { statusReason: "Provider outcome unknown: socket hang up" }),
      flow("Hi Flow", {
        statusReason:
          "twilio refused it for now (Too Many Requests: rate limited, retry later); failed over to telnyx.",
      }),
    ];
    for (const { item } of cases.flat()) expect(itemSize(item as never), String(item.eventType)).toBeLessThan(1024);
  });

  it("each reads back exactly the record it was made from, with nothing stored twice", () => {
    for (const { item, event } of flow("Hi Flow", {
      statusReason: "twilio refused it for now (429); failed over to telnyx.",
    })) {
      expect(toEventRecord(item)).toEqual(event);
      for (const field of Object.keys(eventStoredNames)) expect(item).not.toHaveProperty(field);
      expect(item).not.toHaveProperty(eventStoredNames.description!);
      expect(item).not.toHaveProperty(eventStoredNames.createdBy!);
      expect(typeof item[eventStoredNames.queuedAt!]).toBe("number");
      expect(event.description).toMatch(/^SMS to \+12125550100 \w+: twilio refused/);
    }
    const [accepted, , , , delivered] = flow("Hi Flow");
    expect(accepted!.item[eventStoredNames.status!]).toBe("Pending");
    expect(delivered!.item).not.toHaveProperty(eventStoredNames.status!);
    expect(delivered!.event).toMatchObject({ status: "Delivered", createdBy: "system", actorDisplayName: "System" });
  });

  it("pins the wording an implied description is read back with: changing it would rewrite every stored event's", () => {
    const outbound = { channel: "Sms", direction: "Outbound", toPhoneNumber: "+12125550100" };
    expect(messageEventDescription(outbound, "MessageAccepted")).toBe("SMS to +12125550100 accepted");
    expect(messageEventDescription(outbound, "MessageDelivered")).toBe("SMS to +12125550100 delivered");
    expect(messageEventDescription({ ...outbound, statusReason: "Carrier rejected" }, "MessageFailed")).toBe(
      "SMS to +12125550100 failed: Carrier rejected",
    );
    expect(messageEventDescription({ ...outbound, channel: "Mms" }, "MessageSent")).toBe("MMS to +12125550100 sent");
    expect(
      messageEventDescription(
        { channel: "Sms", direction: "Inbound", fromPhoneNumber: "+12125550142" },
        "MessageReceived",
      ),
    ).toBe("SMS from +12125550142 received");
  });

  it("a message event whose number is null reads back the description it was written with", () => {
    const { item, event } = written(automated("Hi Flow", "Queued", { toPhoneNumber: null as never }), "MessageQueued");
    expect(event.description).toBe("SMS to null queued");
    expect(toEventRecord(item)).toEqual(event);
  });

  it("what differs from what a message's event implies is stored: an MMS's description, an actor, a time in another form", () => {
    const media = [{ url: "https://x.test/a.png", contentType: "image/png" }];
    const mms = written(automated("pic", "Sent", { channel: "Mms", media, sentAt: at(3) }), "MessageSent");
    expect(mms.item[eventStoredNames.description!]).toBe("MMS to +12125550100 sent");
    expect(toEventRecord(mms.item)).toEqual(mms.event);
    const transaction = new Transaction();
    const input = messageEventInput(automated("hi", "Sent", { sentAt: "2026-11-29T06:00:03Z" }), "MessageSent");
    const actor = { organizationId, userId: "u1", displayName: "Ada", email: "ada@example.com", role: "Owner" };
    const byActor = MessagingEvents.item(
      organizationId,
      { ...input, actor, description: "Sent by hand" } as never,
      transaction,
    );
    const item = transaction.items[0]!.Put!.Item as Record<string, unknown>;
    expect(item).toMatchObject({
      [eventStoredNames.sentAt!]: "2026-11-29T06:00:03Z",
      [eventStoredNames.createdBy!]: "u1",
    });
    expect(toEventRecord(item)).toEqual(byActor);
  });

  it("an item stored before (long names, the description, status and system actor, ISO times) reads the same", () => {
    for (const { item, event } of flow("Hi Flow", { statusReason: "a reason" })) {
      const before = {
        ...Object.fromEntries(Object.entries(item).filter(([name]) => !Object.values(eventStoredNames).includes(name))),
        ...Object.fromEntries(Object.entries(event).filter(([, value]) => value !== null)),
        timelineCategory: "Message",
      };
      expect(before).toHaveProperty("description");
      expect(toEventRecord(before)).toEqual(event);
    }
  });

  it("other events store short names too and read back the same", () => {
    const { item, event } = eventItem(organizationId, {
      eventType: "LeadCreated",
      eventCategory: "Lead",
      leadId: "l1",
      description: "Lead Flow received.",
      summary: "Processed",
      timelineCategory: "Lead",
      status: "Processed",
      createdBy: "system",
      actorDisplayName: "System",
    });
    expect(item).toMatchObject({
      [eventStoredNames.description!]: "Lead Flow received.",
      [eventStoredNames.createdBy!]: "system",
    });
    expect(toEventRecord(item)).toEqual(event);
    expect(toEventRecord({ ...event })).toEqual(event);
  });

  it("a raw reader that names fields (the trigger outbox) reads them from eventAttributes", () => {
    const failed = automated("Hi", "Failed", { errorCode: "30007", statusReason: "Carrier filtered", failedAt: at(5) });
    const { item, event } = written(failed, "MessageFailed");
    expect(item).not.toHaveProperty("relatedEntityId");
    expect(eventAttributes(item)).toMatchObject({
      organizationId,
      correlationId: "1sK0XdRTaPRE3g=",
      eventType: "MessageFailed",
      relatedEntityId: event.relatedEntityId,
      conversationId: failed.conversationId,
      leadId: failed.leadId,
      errorCode: "30007",
      fromPhoneNumber: failed.fromPhoneNumber,
      toPhoneNumber: failed.toPhoneNumber,
      createdAt: event.createdAt,
      failedAt: at(5),
    });
    expect(Object.values(eventAttributes(item))).not.toContain(null);
  });
});
