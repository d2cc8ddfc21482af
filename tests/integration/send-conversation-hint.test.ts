import { describe, expect, it } from "vitest";
import { putIfNew } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import * as Conversations from "#core/messaging/conversations";
import { newId } from "#core/shared/ids";
import { handler as sendMessage } from "#functions/messages/send";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { addNumber, createLead, randomNumber } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** POST /messages through its handler in this process (the instance whose conversation hints the test sets). */
async function send(org: TestOrganization, body: Record<string, unknown>) {
  const event = apiEvent({
    method: "POST",
    path: "/messages",
    routeKey: "POST /messages",
    body,
    headers: { authorization: `Bearer ${org.ownerToken}` },
  });
  const result = (await sendMessage(event, lambdaContext() as never)) as { statusCode: number; body: string };
  expect(result.statusCode, result.body).toBe(202);
  return JSON.parse(result.body) as { id: string; conversationId: string; toPhoneNumber: string };
}

describe("POST /messages reads the conversation it last sent to with its other reads, and uses it only when confirmed", () => {
  applyStackEnv();

  it("a wrong hint for a lead or a number is ignored: each message goes to its own number's conversation", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const [phoneA, phoneB, bare] = [randomNumber(), randomNumber(), randomNumber()];
    const [leadA, leadB] = [await createLead(org, phoneA), await createLead(org, phoneB)];
    const firstA = await send(org, { leadId: leadA.id, body: "one" });
    const firstB = await send(org, { leadId: leadB.id, body: "one" });
    const firstBare = await send(org, { to: bare, body: "one" });
    expect(new Set([firstA.conversationId, firstB.conversationId, firstBare.conversationId]).size).toBe(3);

    // The instance sent to them (hints set), then sends again: the same conversations.
    expect((await send(org, { leadId: leadA.id, body: "two" })).conversationId).toBe(firstA.conversationId);
    expect((await send(org, { to: bare, body: "two" })).conversationId).toBe(firstBare.conversationId);

    // A hint naming another number's conversation is not confirmed by what is read: it is not used.
    Conversations.remember(org.organizationId, leadA.id, firstB.conversationId);
    Conversations.remember(org.organizationId, bare, firstB.conversationId);
    const again = await send(org, { leadId: leadA.id, body: "three" });
    const bareAgain = await send(org, { to: bare, body: "three" });
    expect([again.conversationId, again.toPhoneNumber]).toEqual([firstA.conversationId, phoneA]);
    expect([bareAgain.conversationId, bareAgain.toPhoneNumber]).toEqual([firstBare.conversationId, bare]);

    // A hint naming a conversation that does not exist is ignored too.
    Conversations.remember(org.organizationId, leadB.id, "01M8J0000000000000000000XX");
    expect((await send(org, { leadId: leadB.id, body: "two" })).conversationId).toBe(firstB.conversationId);
  });
});

/**
 * Issue 27: a number's first message creates its conversation (the number's pointer and the conversation, with the
 * message's note) in the message's own transaction. One number still has one conversation.
 */
describe("a first message creates its number's conversation in its own transaction", () => {
  applyStackEnv();

  it("concurrent first messages to one new number all land in one conversation, which counts them all", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const phone = randomNumber();
    const sent = await Promise.all(
      Array.from({ length: 6 }, (_, index) => send(org, { to: phone, body: `m${index}` })),
    );
    const ids = new Set(sent.map((message) => message.conversationId));
    expect(ids.size).toBe(1);
    const conversation = await Conversations.byPhone(org.organizationId, phone);
    expect(conversation?.id).toBe(sent[0]!.conversationId);
    expect(conversation).toMatchObject({ contactPhoneNumber: phone, lastDirection: "Outbound" });
  });

  it("a lead's first message starts the conversation with the lead's name", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    const message = await send(org, { leadId: lead.id, body: "hello" });
    const conversation = await Conversations.find(org.organizationId, message.conversationId);
    expect(conversation).toMatchObject({
      contactPhoneNumber: phone,
      leadId: lead.id,
      lastMessagePreview: "hello",
      lastDirection: "Outbound",
    });
    expect(conversation?.leadName).toBe("Dana");
  });

  it("a pointer left without its conversation (a creation stopped before issue 27) gets it under the pointer's id", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const phone = randomNumber();
    const claimedId = newId();
    await putIfNew({
      ...keys.conversationByPhone(org.organizationId, phone),
      entity: entities.conversationByPhone,
      conversationId: claimedId,
    });
    const message = await send(org, { to: phone, body: "after the stop" });
    expect(message.conversationId).toBe(claimedId);
    expect(await Conversations.find(org.organizationId, claimedId)).toMatchObject({ contactPhoneNumber: phone });
  });
});
