import type { Actor } from "#core/auth/actor";
import { NotFoundError } from "#core/errors";
import { Conversations } from "#core/messaging/conversations";
import type { Message } from "#core/messaging/model";
import { readMessage } from "#core/messaging/store";
import { mayRead } from "#core/routing/visibility";

/**
 * Reading one message, apart from `Messages` (messages.ts), whose sends bring the sender's registration check (phone
 * parsing), the wallet and the lifecycle into every bundle that imports it: `GET /messages/{id}` and the webhook
 * payloads only read.
 */

/** A message the caller may read (an agent held to their own leads: theirs, or of a conversation theirs now); else 404. */
export async function messageFromId(actor: Actor, messageId: string): Promise<Message> {
  const message = await readMessage(actor.organizationId, messageId);
  const conversationNow = async () => message && Conversations.find(actor.organizationId, message.conversationId);
  if (!message || !(await mayRead(actor, message, conversationNow))) throw new NotFoundError("Message", messageId);
  return message;
}
