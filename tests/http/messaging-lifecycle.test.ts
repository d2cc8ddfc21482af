import { describe, expect, it } from "vitest";
import { addNumber, createLead, eventsWhen, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

describe("POST /messages: delivery lifecycle through the carrier simulator", () => {
  it("answers 202 Pending, then moves Queued → Sending → Sent → Delivered with every timestamp and event", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const lead = await createLead(org, randomNumber("212"));
    const accepted = await send(org, { leadId: lead.id, body: "Hi Dana, thanks for your request!" });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      status: "Pending",
      leadId: lead.id,
      direction: "Outbound",
      channel: "Sms",
      segments: 1,
      encoding: "GSM7",
    });
    const delivered = await waitForMessage(org, accepted.body.id, (message) => message.status === "Delivered");
    expect(delivered).toMatchObject({
      fromPhoneNumberId: number.id,
      fromPhoneNumber: number.phoneNumber,
      selectionReason: "AreaCodeMatch",
      wasManuallyOverridden: false,
      provider: "simulator",
      retryCount: 0,
    });
    for (const field of ["queuedAt", "sendingStartedAt", "sentAt", "deliveredAt"])
      expect(delivered[field], field).toMatch(/Z$/);
    expect(delivered.providerMessageId).toMatch(/^SM/);
    const timeline = await eventsWhen(org, { eventCategory: "Sms" }, (items) =>
      items.some((event) => event.eventType === "MessageDelivered"),
    );
    const types = timeline.filter((event) => event.relatedEntityId === delivered.id).map((event) => event.eventType);
    expect(new Set(types)).toEqual(
      new Set(["MessageAccepted", "MessageQueued", "MessageSending", "MessageSent", "MessageDelivered"]),
    );
  });

  it("sends MMS media and records it on the message and its events", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const media = [
      {
        url: "https://cdn.example.com/brochure.jpg",
        contentType: "image/jpeg",
        size: 2048,
        sha256: "a".repeat(64),
        fileName: "brochure.jpg",
      },
    ];
    const accepted = await send(org, { to: randomNumber("415"), body: "Our brochure", media });
    expect(accepted.status).toBe(202);
    expect(accepted.body.channel).toBe("Mms");
    const delivered = await waitForMessage(org, accepted.body.id, (message) => message.status === "Delivered");
    expect(delivered.media).toEqual(media);
    expect(delivered.selectionReason).toBe("LeastRecentlyUsed");
    const [deliveredEvent] = await eventsWhen(org, { eventType: "MessageDelivered" }, (items) => items.length > 0);
    expect(deliveredEvent.media).toEqual(media);
  });

  it("ends Failed with the carrier's error code and Undelivered with undeliverableAt", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const failed = await send(org, { to: magic("01"), body: "x" });
    const undelivered = await send(org, { to: magic("02"), body: "x" });
    expect(await waitForMessage(org, failed.body.id)).toMatchObject({ status: "Failed", errorCode: "30008" });
    const final = await waitForMessage(org, undelivered.body.id);
    expect(final).toMatchObject({ status: "Undelivered", errorCode: "30003" });
    expect(final.undeliverableAt).toBeTruthy();
  });
});
