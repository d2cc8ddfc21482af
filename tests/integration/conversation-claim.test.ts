import { describe, expect, it } from "vitest";
import { putIfNew } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import * as Conversations from "#core/messaging/conversations";
import { newId } from "#core/shared/ids";
import { uniquePhone } from "#tests/helpers/leads";
import { applyStackEnv } from "#tests/helpers/stack";

/**
 * Issue 16: a conversation is created by two conditional puts (the number's
 * pointer, then the conversation) instead of a transaction. One contact number
 * still has exactly one conversation, under any interleaving or interruption.
 */
describe("creating a number's conversation", () => {
  applyStackEnv();

  it("gives every concurrent first message to a number the same conversation", async () => {
    const organizationId = newId();
    const phone = uniquePhone();
    const created = await Promise.all(
      Array.from({ length: 8 }, () => Conversations.ensure(organizationId, phone, undefined, null)),
    );
    expect(new Set(created.map((conversation) => conversation.id)).size).toBe(1);
    expect((await Conversations.byPhone(organizationId, phone))?.id).toBe(created[0]!.id);
  });

  it("completes a conversation whose creation stopped after its pointer: stored under the id the pointer names", async () => {
    const organizationId = newId();
    const phone = uniquePhone();
    const claimedId = newId();
    await putIfNew({
      ...keys.conversationByPhone(organizationId, phone),
      entity: entities.conversationByPhone,
      conversationId: claimedId,
    });
    expect(await Conversations.byPhone(organizationId, phone)).toBeUndefined();
    const conversation = await Conversations.ensure(organizationId, phone, undefined, null);
    expect(conversation).toMatchObject({ id: claimedId, contactPhoneNumber: phone, unreadCount: 0 });
    expect((await Conversations.byPhone(organizationId, phone))?.id).toBe(claimedId);
  });
});
