import { describe, expect, it } from "vitest";
import { Conversations } from "#core/messaging/conversations";
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
