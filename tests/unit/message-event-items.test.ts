import { describe, expect, it } from "vitest";
import { eventItem, eventStoredNames, toEventRecord } from "#core/events/index";
import { newMessage } from "#core/messaging/messages";
import { messageEventInput } from "#core/messaging/timeline";

const sent = {
  ...newMessage({
    conversationId: "01M8JYE7MSFG2W8T7STFBDZ1CH",
    direction: "Outbound",
    status: "Sent",
    body: "hello",
    media: [],
    toPhoneNumber: "+12125550100",
    createdBy: "u1",
  }),
  fromPhoneNumberId: "01M8JYDK7Y79A1XWE4DEAZCCCD",
  fromPhoneNumber: "+12125550142",
  sentAt: "2026-11-29T06:00:00.000Z",
};

describe("a message's event item leaves out what every message event holds (issue 27)", () => {
  it("reads back exactly the record it was made from", () => {
    const { item, event } = eventItem("o1", messageEventInput(sent, "MessageSent"));
    for (const implied of ["timelineCategory", "timelineType", "relatedEntityType", "trafficType", "media"])
      expect(item).not.toHaveProperty(implied);
    for (const implied of ["tc", "tt", "rt", "tf", "me", "oi", "de", "st"]) expect(item).not.toHaveProperty(implied);
    expect(item).not.toHaveProperty("outboundPhoneNumberId");
    expect(event).toMatchObject({
      timelineCategory: "Message",
      timelineType: "Message",
      relatedEntityType: "Message",
      trafficType: "RealLead",
      media: [],
      outboundPhoneNumberId: sent.fromPhoneNumberId,
    });
    expect(toEventRecord(item)).toEqual(event);
  });

  it("an inbound message's event has no outbound number; media it carries is stored", () => {
    const media = [{ url: "https://x.test/a.png", contentType: "image/png" }];
    const inbound = { ...sent, direction: "Inbound" as const, status: "Received" as const, media };
    const { item, event } = eventItem("o1", messageEventInput(inbound, "MessageReceived"));
    expect(item[eventStoredNames.media!]).toEqual(media);
    expect(event.outboundPhoneNumberId).toBeNull();
    expect(toEventRecord(item)).toEqual(event);
  });

  it("an item stored with those fields (before issue 27) reads the same; other events imply nothing", () => {
    const { event } = eventItem("o1", messageEventInput(sent, "MessageSent"));
    expect(toEventRecord({ ...event })).toEqual(event);
    const other = eventItem("o1", { eventType: "LeadCreated", eventCategory: "Lead", leadId: "l1" });
    expect(toEventRecord(other.item)).toMatchObject({ timelineCategory: null, trafficType: null, media: null });
  });
});
