import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ForbiddenError } from "#core/errors";
import { CarrierCallbacks } from "#core/messaging/carrier-callbacks";
import type { WebhookRequest } from "#core/providers/port";
import { events, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/twilio/${name}`, import.meta.url), "utf8")) as T;
const account = fixture<{ accountSid: string; authToken: string }>("account.json");
const recorded = (name: string) => fixture<WebhookRequest>(name);

/**
 * Recorded Twilio webhooks (signed for https://api.example.com with the fixture
 * account's token) through messaging's webhook handling, unchanged: the Twilio
 * adapter verifies X-Twilio-Signature over the URL Twilio called.
 */
describe("Twilio webhooks (recorded fixtures)", () => {
  process.env.TWILIO_ACCOUNT_SID = account.accountSid;
  process.env.TWILIO_AUTH_TOKEN = account.authToken;

  it("stores an inbound MMS and opts the contact out on a recorded 'Stop', for the organization owning the number", async () => {
    const org = await newOrganization();
    const owned = await org.request("POST", "/phone-numbers", {
      body: { phoneNumber: "+12025550142", friendlyName: "Fixture line" },
    });
    expect(owned.status).toBe(201);

    await CarrierCallbacks.inboundMessage("twilio", recorded("webhook-inbound-mms.json"));
    await CarrierCallbacks.inboundMessage("twilio", recorded("webhook-inbound-mms.json")); // Twilio retried it
    const [received] = await events(org, { eventType: "MessageReceived" });
    expect(received).toMatchObject({
      fromPhoneNumber: "+13125550187",
      toPhoneNumber: "+12025550142",
      summary: "Here's the house 🏠 & garage",
    });
    expect(received.media).toEqual([{ url: expect.stringContaining("/Media/ME4f3e"), contentType: "image/jpeg" }]);
    expect(await events(org, { eventType: "MessageReceived" })).toHaveLength(1);

    await CarrierCallbacks.inboundMessage("twilio", recorded("webhook-inbound-stop.json"));
    const suppressions = (await org.request("POST", "/suppressions/all/my", { body: {} })).body.items;
    expect(suppressions).toMatchObject([{ phoneNumber: "+13125550187", reason: "OptOutKeyword" }]);
    const [confirmation] = await events(org, { eventType: "MessageAccepted" });
    expect(await waitForMessage(org, confirmation.relatedEntityId)).toMatchObject({
      purpose: "OptOutConfirmation",
      toPhoneNumber: "+13125550187",
    });
    expect((await org.request("DELETE", "/phone-numbers/" + owned.body.id)).status).toBe(204);
  });

  it("refuses a recorded webhook whose body was altered", async () => {
    const request = recorded("webhook-inbound-stop.json");
    await expect(
      CarrierCallbacks.inboundMessage("twilio", { ...request, body: request.body.replace("Body=Stop", "Body=Start") }),
    ).rejects.toBeInstanceOf(ForbiddenError);
    await expect(
      CarrierCallbacks.messageStatus("twilio", {
        ...recorded("webhook-message-delivered.json"),
        url: "https://evil.example.com/webhooks/twilio/messages/status",
      }),
    ).rejects.toBeInstanceOf(ForbiddenError);
  });
});
