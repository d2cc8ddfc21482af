import { encodeTime } from "ulid";
import type { Actor } from "#core/auth/actor";
import { MessageEntity } from "#core/db/entities/messaging";
import { queryPages } from "#core/db/query";
import { NotFoundError } from "#core/errors";
import * as Conversations from "#core/messaging/conversations";
import type { Message } from "#core/messaging/model";
import { messageRead, readMessage } from "#core/messaging/store";
import { mayRead } from "#core/routing/visibility";

/**
 * Reading one message, apart from `Messages` (messages.ts), whose sends bring the sender's registration check (phone
 * parsing), the wallet and the lifecycle into every bundle that imports it: `GET /messages/{id}`, the webhook
 * payloads and the automation engine's conditions only read.
 */

/** A message of the organization, read consistently; undefined when absent (`Messages.find`). */
export const findMessage = readMessage;

/** `findMessage`'s read, for a batch with other reads (`readTogether`): an automation step reads its message with its run. */
export const findMessageRead = messageRead;

/** A message the caller may read (an agent held to their own leads: theirs, or of a conversation theirs now); else 404. */
export async function messageFromId(actor: Actor, messageId: string): Promise<Message> {
  const message = await readMessage(actor.organizationId, messageId);
  const conversationNow = async () => message && Conversations.find(actor.organizationId, message.conversationId);
  if (!message || !(await mayRead(actor, message, conversationNow))) throw new NotFoundError("Message", messageId);
  return message;
}

/** Whether the contact of `conversationId` wrote in (an inbound message) at or after `since` (message ids are ULIDs, so a key range). */
export async function hasInboundSince(organizationId: string, conversationId: string, since: string): Promise<boolean> {
  const conversation = { organizationId, conversationId };
  for await (const page of queryPages(
    MessageEntity.query("byConversation", conversation, {
      range: {
        atLeast: `${MessageEntity.sortKey("byConversation", conversation)}${encodeTime(Date.parse(since), 10)}`,
      },
      where: (message) => message.direction === "Inbound",
    }),
  )) {
    if (page.length > 0) return true;
  }
  return false;
}
