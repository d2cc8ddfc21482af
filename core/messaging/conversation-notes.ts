import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import * as Conversations from "#core/messaging/conversations";
import { ownerOf } from "#core/events/index";
import * as MessagingEvents from "#core/messaging/timeline";
import { timestamp } from "#core/shared/ids";
import { AddNoteSchema, type AddNote } from "#core/shared/notes";

export { AddNoteSchema };

export const ConversationNoteSchema = v.object({
  /** The id of the `ConversationNoteAdded` event that holds it. */
  id: v.string(),
  conversationId: v.string(),
  leadId: v.nullable(v.string()),
  body: v.string(),
  authorUserId: v.nullable(v.string()),
  authorName: v.string(),
  createdAt: timestamp,
});
export type ConversationNote = v.InferOutput<typeof ConversationNoteSchema>;

/**
 * Internal notes: what a colleague should know about a conversation, never sent to the contact. A note is its
 * `ConversationNoteAdded` event record (the text in `summary`), so the thread and the lead's timeline show it in
 * order with the messages and calls from the one events list, and it is kept as long as the timeline is.
 */

export async function add(actor: Actor, conversationId: string, input: AddNote): Promise<ConversationNote> {
  const conversation = await Conversations.fromId(actor, conversationId);
  const event = await MessagingEvents.record(actor.organizationId, {
    eventType: "ConversationNoteAdded",
    eventCategory: "Conversation",
    description: `Note by ${actor.displayName}`,
    summary: input.body,
    conversationId,
    ...(conversation.leadId ? { leadId: conversation.leadId } : {}),
    ...ownerOf(conversation),
    relatedEntityType: "Conversation",
    relatedEntityId: conversationId,
    actor,
  });
  return {
    id: event.id,
    conversationId,
    leadId: conversation.leadId,
    body: input.body,
    authorUserId: actor.userId ?? null,
    authorName: actor.displayName,
    createdAt: event.createdAt,
  };
}
