import { describe, expect, it } from "vitest";
import { agents, assign } from "#tests/helpers/routing";
import { waitForCall } from "#tests/helpers/calls";
import { addNumber, createLead, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/**
 * An agent's own number (issue 28, docs/routing.md): an owner gives a number to an agent (`PUT /phone-numbers/{id}`);
 * the texts and calls of the agent's leads go out from it, nobody else's do, and a conversation's sticky number still
 * wins once it has one.
 */
describe("an agent's own number", () => {
  it("texts and calls the agent's leads from their number, everyone else's from the shared pool", async () => {
    const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
    const [ann, bob] = await agents(org, 2);
    const shared = await addNumber(org, "212");
    const annsNumber = await addNumber(org, "415");

    // Only an active user of the organization gets a number, and only an owner or admin gives it.
    const foreign = (await agents(other, 1))[0]!;
    const refused = await org.request("PUT", `/phone-numbers/${annsNumber.id}`, {
      body: { assignedUserId: foreign.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: "/assignedUserId" })]);
    expect(
      (
        await org.request("PUT", `/phone-numbers/${annsNumber.id}`, {
          token: ann!.token,
          body: { assignedUserId: ann!.id },
        })
      ).status,
    ).toBe(403);
    const given = await org.request("PUT", `/phone-numbers/${annsNumber.id}`, { body: { assignedUserId: ann!.id } });
    expect(given.status, JSON.stringify(given.body)).toBe(200);
    // The name it had is kept: a field left out is not cleared.
    expect(given.body).toMatchObject({ assignedUserId: ann!.id, friendlyName: "Line 415" });

    // Ann's lead, in New York: her own number, though the shared one has the lead's area code.
    const annsLead = await createLead(org, randomNumber("212"));
    await assign(org, annsLead.id, ann!.id);
    const toAnnsLead = await send(org, { leadId: annsLead.id, body: "Hi, this is Ann." });
    expect(toAnnsLead.status, JSON.stringify(toAnnsLead.body)).toBe(202);
    expect(await waitForMessage(org, toAnnsLead.body.id)).toMatchObject({
      fromPhoneNumberId: annsNumber.id,
      selectionReason: "AgentNumber",
    });
    const annsCall = await org.request("POST", "/calls", { body: { leadId: annsLead.id } });
    expect(annsCall.status, JSON.stringify(annsCall.body)).toBe(202);
    expect(await waitForCall(org, annsCall.body.id)).toMatchObject({ fromPhoneNumberId: annsNumber.id });

    // Bob's lead in San Francisco never goes out from Ann's number, though it has the lead's area code.
    const bobsLead = await createLead(org, randomNumber("415"));
    await assign(org, bobsLead.id, bob!.id);
    const toBobsLead = await send(org, { leadId: bobsLead.id, body: "Hi, this is Bob." });
    expect(await waitForMessage(org, toBobsLead.body.id)).toMatchObject({ fromPhoneNumberId: shared.id });

    // Back in the pool, the number serves anyone again; the conversation Ann's number started sticks to it.
    const returned = await org.request("PUT", `/phone-numbers/${annsNumber.id}`, { body: { assignedUserId: null } });
    expect(returned.body.assignedUserId).toBeNull();
    const again = await send(org, { leadId: annsLead.id, body: "Following up." });
    expect(await waitForMessage(org, again.body.id)).toMatchObject({
      fromPhoneNumberId: annsNumber.id,
      selectionReason: "StickyConversation",
    });
    const audit = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "resourceId", value: annsNumber.id }] },
    });
    // Its purchase, then the two changes of owner: the refused ones wrote nothing.
    expect(audit.body.items.map((entry: { action: string }) => entry.action).sort()).toEqual([
      "phoneNumber.added",
      "phoneNumber.assigned",
      "phoneNumber.assigned",
    ]);
  });
});
