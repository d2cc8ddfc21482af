import { afterAll, describe, expect, it } from "vitest";
import { buyNumber, onCarrier, postTelnyxWebhook, telnyxEvent } from "#tests/helpers/carriers";
import { addNumber, events, magic, randomNumber, send, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, waitForResource, type TestOrganization } from "#tests/helpers/stack";
import { brandBody, campaignBody, uniqueName } from "#tests/helpers/registration";
import { subscribeToEvents, type EventStream } from "#tests/helpers/webhooks";

/**
 * Number health through the HTTP API against the carrier simulator: receipts feed each number's rolling counts; a spike of
 * carrier filtering (simulator scenario 11: Undelivered with 30007) pauses the number, moves its sends to the pool, says so
 * (event, webhook, needsAttention) until the owner resumes it; opt-outs count against the number written to.
 */

const streams: EventStream[] = [];
afterAll(async () => void (await Promise.all(streams.map((stream) => stream.close()))));

describe("number health", () => {
  it("a spike of carrier filtering pauses the number, its sends move to the pool, and the owner resumes it", async () => {
    const org = await newOrganization();
    const webhooks = await subscribeToEvents(org, ["phone_number.paused"]);
    streams.push(webhooks);
    const filtered = await addNumber(org, "212");
    const healthy = await addNumber(org, "646");

    // Five messages from the same number, each filtered by the carrier (30007): the fifth makes the spike.
    const sends = await Promise.all(
      ["212", "718", "917", "347", "332"].map((areaCode) =>
        send(org, { to: magic("11", areaCode), body: "Big sale today!", fromPhoneNumberId: filtered.id }),
      ),
    );
    for (const sent of sends) expect(sent.status).toBe(202);
    for (const sent of sends)
      expect(await waitForMessage(org, sent.body.id)).toMatchObject({ status: "Undelivered", errorCode: "30007" });

    // The count and the pause follow the receipt's committed status (core/messaging/lifecycle.ts afterEnding): the
    // message reads Undelivered a moment before the fifth count pauses its number.
    const health = await waitForPause(org, filtered.id);
    expect(health).toMatchObject({
      phoneNumberId: filtered.id,
      status: "Paused",
      paused: { at: expect.any(String), reason: expect.stringContaining("5 of its last 5 messages were filtered") },
      finalOutcomes: 5,
      delivered: 0,
      deliveryRate: 0,
      errors: { "30007": 5, "30034": 0, "30003": 0, "21610": 0, other: 0 },
    });
    expect((await org.request("GET", `/phone-numbers/${filtered.id}`)).body.paused).toEqual(health.paused);

    expect(await webhooks.awaitEvent("phone_number.paused")).toMatchObject({
      type: "phone_number.paused",
      data: { id: filtered.id, paused: health.paused },
    });
    const attention = await org.request("GET", "/analytics/my");
    expect(attention.body.needsAttention).toContainEqual(
      expect.objectContaining({
        severity: "Critical",
        title: `Number ${filtered.phoneNumber} paused`,
        actionHref: `/phone-numbers/${filtered.id}/health`,
      }),
    );

    // The paused number's area code no longer wins it the send: the pool's healthy number carries it.
    const moved = await send(org, { to: randomNumber("212"), body: "Your quote is ready." });
    expect((await waitForMessage(org, moved.body.id)).fromPhoneNumberId).toBe(healthy.id);

    const resumed = await org.request("POST", `/phone-numbers/${filtered.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.paused).toBeNull();
    expect((await org.request("POST", `/phone-numbers/${filtered.id}/resume`)).status).toBe(409);
    const back = await send(org, { to: randomNumber("212"), body: "Your quote is ready." });
    expect((await waitForMessage(org, back.body.id)).fromPhoneNumberId).toBe(filtered.id);
    expect((await events(org, { eventType: "PhoneNumberPaused" })).map((event) => event.relatedEntityId)).toEqual([
      filtered.id,
    ]);
    expect((await events(org, { eventType: "PhoneNumberResumed" })).map((event) => event.relatedEntityId)).toEqual([
      filtered.id,
    ]);
  });

  it("a few filtered messages among many delivered do not pause; opt-outs count against the number written to", async () => {
    const org = await newOrganization();
    const number = await addNumber(org, "212");
    const outcomes = await Promise.all(
      [magic("11", "212"), magic("00", "718"), magic("00", "917"), magic("02", "347")].map((to) =>
        send(org, { to, body: "Hello from Acme." }),
      ),
    );
    for (const sent of outcomes) await waitForMessage(org, sent.body.id);
    const contact = randomNumber("212");
    await textFrom(contact, number.phoneNumber, "STOP");
    await textFrom(contact, number.phoneNumber, "STOP"); // a second STOP is not a second opt-out

    // The opt-out confirmation is the number's fifth outcome.
    const health = await waitForResource(
      org,
      `/phone-numbers/${number.id}/health`,
      (body) => body.finalOutcomes === 5 && body.optOuts === 1,
      15_000,
      "health",
    );
    expect(health).toMatchObject({
      status: "Active",
      paused: null,
      delivered: 3,
      deliveryRate: 0.6,
      errors: { "30007": 1, "30003": 1 },
      optOutRate: 0.2,
    });
  });

  it("a campaign's opt-out rate counts the STOPs on its own numbers, not those of another campaign or of no campaign", async () => {
    const org = await newOrganization();
    // The simulator's registry approves the brand and each campaign at the first refresh (docs/provider-simulator.md).
    await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    expect((await org.request("POST", "/carrier-registration/refresh")).body.brand.status).toBe("Approved");
    const quotes = await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() });
    const reminders = await org.request("POST", "/carrier-registration/campaigns", {
      body: campaignBody("Reminds homeowners who booked an Acme Roofing inspection of its date and time."),
    });
    expect([quotes.status, reminders.status]).toEqual([201, 201]);
    expect(
      (await org.request("POST", "/carrier-registration/refresh")).body.campaigns.map(
        (campaign: { status: string }) => campaign.status,
      ),
    ).toEqual(["Approved", "Approved"]);
    const [quoteLine, quoteLine2, reminderLine, unregistered] = await Promise.all(
      ["212", "646", "718", "917"].map((areaCode) => addNumber(org, areaCode)),
    );
    for (const [number, campaign] of [
      [quoteLine!, quotes],
      [quoteLine2!, quotes],
      [reminderLine!, reminders],
    ] as const) {
      const attached = await org.request("PUT", `/phone-numbers/${number.id}/campaign`, {
        body: { campaignId: campaign.body.id },
      });
      expect(attached.status).toBe(200);
    }

    // One delivered message from each number, then a STOP to each quote line and to the number of no campaign.
    for (const number of [quoteLine!, quoteLine2!, reminderLine!, unregistered!]) {
      const sent = await send(org, {
        to: randomNumber("312"),
        body: "Your quote is ready.",
        fromPhoneNumberId: number.id,
      });
      expect(await waitForMessage(org, sent.body.id)).toMatchObject({ status: "Delivered" });
    }
    for (const number of [quoteLine!, quoteLine2!, unregistered!])
      await textFrom(randomNumber("212"), number.phoneNumber, "STOP");

    // Each STOP's confirmation is one more outcome of its number: counted a moment after it is delivered.
    const quoteRate = await waitForResource(
      org,
      `/carrier-registration/campaigns/${quotes.body.id}`,
      (body) => body.optOuts.finalOutcomes === 4 && body.optOuts.optOuts === 2,
      15_000,
      "the quotes campaign's opt-outs",
    );
    expect(quoteRate.optOuts).toEqual({ finalOutcomes: 4, optOuts: 2, optOutRate: 0.5 });
    await waitForResource(
      org,
      `/phone-numbers/${unregistered!.id}/health`,
      (body) => body.finalOutcomes === 2 && body.optOuts === 1,
      15_000,
      "the unregistered number's opt-out",
    );
    const reminderRate = await waitForResource(
      org,
      `/carrier-registration/campaigns/${reminders.body.id}`,
      (body) => body.optOuts.finalOutcomes === 1,
      15_000,
      "the reminders campaign's outcome",
    );
    expect(reminderRate.optOuts).toEqual({ finalOutcomes: 1, optOuts: 0, optOutRate: 0 });
    // The list shows each campaign with its own rate too.
    const listed = await org.request("GET", "/carrier-registration/campaigns");
    expect(
      Object.fromEntries(
        listed.body.items.map((campaign: { id: string; optOuts: { optOutRate: number } }) => [
          campaign.id,
          campaign.optOuts.optOutRate,
        ]),
      ),
    ).toEqual({ [quotes.body.id]: 0.5, [reminders.body.id]: 0 });
  });

  it("counts a Telnyx number's spam blocks (40002, 40003, 40015) and unregistered traffic (40010) as filtering and pauses it; 40300 counts as an opt-out block, 40006 as other", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const ours = await buyNumber(org);
    // Titles as Telnyx's Messaging Error Code Reference gives them (core/messaging/number-health.ts).
    const outcomes: [string, string][] = [
      ["40006", "Recipient server unavailable"],
      ["40002", "Blocked as spam - temporary"],
      ["40003", "Blocked as spam - permanent"],
      ["40015", "Internal spam filter"],
      ["40002", "Blocked as spam - temporary"],
      ["40300", "Blocked due to STOP message"],
      ["40010", "Not 10DLC registered"],
    ];
    for (const [code, title] of outcomes) {
      const to = randomNumber("312");
      const accepted = await send(org, { to, body: "Your quote is ready.", fromPhoneNumberId: ours.id });
      expect(accepted.status).toBe(202);
      const sent = await waitForMessage(
        org,
        accepted.body.id,
        (message) => message.status === "Sending" && message.providerMessageId,
      );
      const finalized = telnyxEvent("message.finalized", {
        id: sent.providerMessageId,
        record_type: "message",
        direction: "outbound",
        type: "SMS",
        parts: 1,
        errors: [{ code, title }],
        from: { phone_number: ours.phoneNumber },
        to: [{ phone_number: to, status: "delivery_failed" }],
      });
      expect(
        (await postTelnyxWebhook(`/webhooks/telnyx/messages/status?messageId=${accepted.body.id}`, finalized)).status,
      ).toBe(200);
      expect(await waitForMessage(org, accepted.body.id)).toMatchObject({ status: "Undelivered", errorCode: code });
    }
    // The seventh, unregistered traffic, is the fifth filtered message: it makes the spike.
    expect(await waitForPause(org, ours.id)).toMatchObject({
      paused: { reason: expect.stringContaining("5 of its last 7 messages were filtered") },
      finalOutcomes: 7,
      errors: { "30007": 4, "30034": 1, "30003": 0, "21610": 1, other: 1 },
    });
  });
});

/** The number's health once it reads Paused: the pause follows the receipt that made the spike by a moment. */
function waitForPause(org: TestOrganization, phoneNumberId: string) {
  return waitForResource(
    org,
    `/phone-numbers/${phoneNumberId}/health`,
    (body) => body.status === "Paused",
    15_000,
    "pause",
  );
}
