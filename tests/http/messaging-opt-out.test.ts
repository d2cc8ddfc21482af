import { describe, expect, it } from "vitest";
import * as Organizations from "#core/organizations/index";
import {
  addNumber,
  createLead,
  events,
  eventsWhen,
  magic,
  randomNumber,
  send,
  textFrom,
  waitForMessage,
} from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

async function repliesTo(org: TestOrganization, phone: string) {
  const accepted = (await events(org, { eventType: "MessageAccepted" })).filter(
    (event) => event.toPhoneNumber === phone,
  );
  return Promise.all(accepted.map((event) => waitForMessage(org, event.relatedEntityId)));
}

const suppressionsOf = async (org: TestOrganization) =>
  (await org.request("POST", "/suppressions/all/my", { body: {} })).body.items;

describe("opt-out with the carrier", () => {
  it("a STOP the carrier already answered (OptOutType) suppresses the number without a second confirmation", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    // The organization's extra keyword, classified by the carrier as STOP: the carrier's word decides.
    expect((await textFrom(phone, number.phoneNumber, "Arret", undefined, "STOP")).status).toBe(200);
    expect(await suppressionsOf(org)).toMatchObject([{ phoneNumber: phone, reason: "OptOutKeyword", leadId: lead.id }]);
    const optedOut = await eventsWhen(org, { eventType: "ContactOptedOut" }, (items) => items.length === 1);
    expect(optedOut).toHaveLength(1);
    expect((await org.request("GET", `/leads/${lead.id}`)).body.metadata).toMatchObject({ smsOptedOut: true });
    expect((await textFrom(phone, number.phoneNumber, "start", undefined, "START")).status).toBe(200);
    expect(await suppressionsOf(org)).toEqual([]);
    // The webhook handles a keyword (and queues any reply) before it answers: neither got a reply from us, the carrier sent both.
    expect(await repliesTo(org, phone)).toEqual([]);
    // Without the carrier's flag, our own HELP reply goes out as usual.
    await textFrom(phone, number.phoneNumber, "HELP");
    expect((await repliesTo(org, phone)).map((message) => message.purpose)).toEqual(["HelpReply"]);
  });

  it("an organization's extra keywords opt out, opt in and ask for help; the standard ones cannot be listed", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const saved = await org.request("PUT", "/messaging/settings", {
      body: { keywords: { optOut: ["arrêt", "Baja"], optIn: ["alta"], help: ["ayuda"] } },
    });
    expect(saved.status).toBe(200);
    expect(saved.body.keywords).toEqual({ optOut: ["ARRÊT", "BAJA"], optIn: ["ALTA"], help: ["AYUDA"] });
    const phone = randomNumber();
    await textFrom(phone, number.phoneNumber, "baja!");
    expect(await suppressionsOf(org)).toMatchObject([{ phoneNumber: phone, reason: "OptOutKeyword" }]);
    await textFrom(phone, number.phoneNumber, "Alta");
    expect(await suppressionsOf(org)).toEqual([]);
    await textFrom(phone, number.phoneNumber, "AYUDA");
    const replies = await repliesTo(org, phone);
    expect(replies.map((message) => message.purpose).sort()).toEqual([
      "HelpReply",
      "OptInConfirmation",
      "OptOutConfirmation",
    ]);
    const invalid = await org.request("PUT", "/messaging/settings", {
      body: { keywords: { optOut: ["stop"], help: ["two words"] } },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/keywords/help/0",
      "/keywords/optOut/0",
    ]);
  });

  it("a suppression the contact asked for (STOP, carrier 21610) cannot be deleted through the API, by anyone: 409; a manual one can, the actor recorded", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const stopped = randomNumber();
    await textFrom(stopped, number.phoneNumber, "STOP");
    const carrierOptedOut = magic("06");
    await waitForMessage(org, (await send(org, { to: carrierOptedOut, body: "hi" })).body.id);
    const manual = randomNumber();
    expect((await org.request("POST", "/suppressions", { body: { phoneNumber: manual } })).status).toBe(201);
    const apiKey = await Organizations.issueApiKey(org.organizationId, {
      name: "integration",
      scopes: ["suppressions:write", "suppressions:read"],
    });

    for (const phone of [stopped, carrierOptedOut]) {
      for (const token of [undefined, apiKey.apiKey]) {
        const refused = await org.request(
          "DELETE",
          `/suppressions/${encodeURIComponent(phone)}`,
          token ? { token } : {},
        );
        expect(refused.status).toBe(409);
        expect(refused.body.detail).toMatch(/only the contact can lift it/);
      }
    }
    expect((await suppressionsOf(org)).map((entry: { phoneNumber: string }) => entry.phoneNumber).sort()).toEqual(
      [stopped, carrierOptedOut, manual].sort(),
    );
    expect((await org.request("DELETE", `/suppressions/${encodeURIComponent(manual)}`)).status).toBe(204);
    const removed = await eventsWhen(org, { eventType: "SuppressionRemoved" }, (items) => items.length === 1);
    expect(removed[0]).toMatchObject({ toPhoneNumber: manual, actorUserId: org.userIds.owner });

    // A manual entry the contact then confirms with STOP becomes the contact's: no longer removable through the API.
    const confirmed = randomNumber();
    await org.request("POST", "/suppressions", { body: { phoneNumber: confirmed } });
    await textFrom(confirmed, number.phoneNumber, "STOP");
    expect((await org.request("DELETE", `/suppressions/${encodeURIComponent(confirmed)}`)).status).toBe(409);
  });
});
