import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { Transaction, TransactionConditionFailed, transact } from "#core/db/transact";
import { ConflictError, NotFoundError } from "#core/errors";
import * as LeadReads from "#core/leads/reads";
import { checkAssigneeChange } from "#core/leads/assignee-rules";
import { mayRead } from "#core/routing/visibility";
import * as Conversations from "#core/messaging/conversations";
import {
  assigneeUpdate,
  storedAssignment,
  type Conversation,
  type ConversationAssignedBy,
} from "#core/messaging/conversations";
import { ownerOf } from "#core/events/index";
import * as MessagingEvents from "#core/messaging/timeline";
import { nowIso } from "#core/shared/ids";
import * as UserLookups from "#core/users/lookups";

/** Body of `PUT /conversations/{id}/assignee`. */
export const AssignConversationSchema = v.strictObject({
  userId: v.pipe(
    v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
    v.description("The user who takes the conversation; null unassigns it."),
  ),
});
export type AssignConversation = v.InferOutput<typeof AssignConversationSchema>;

/** How often a lead's assignment is applied again after a concurrent change of the conversation moved its version. */
const FOLLOW_ATTEMPTS = 5;

/**
 * The conversation's new assignee and its event in one transaction, conditioned on the assignment version read
 * (`assignmentChangedAt`), so of two changes at once exactly one is written. Answers undefined when the version moved.
 */
async function writeAssignment(
  organizationId: string,
  stored: { conversation: Conversation; changedAt: string | null },
  change: { userId: string | null; by: ConversationAssignedBy | null; at: string; because?: string },
  actor?: Actor,
): Promise<Conversation | undefined> {
  const { conversation } = stored;
  const assignedAt = change.userId ? change.at : null;
  const transaction = new Transaction().update(
    "conversation",
    assigneeUpdate(
      organizationId,
      conversation.id,
      { userId: change.userId, assignedAt, by: change.by, at: change.at },
      stored.changedAt,
    ),
  );
  const assignee = change.userId
    ? ((await UserLookups.standing(organizationId, change.userId))?.name ?? change.userId)
    : null;
  const who = conversation.leadName ?? conversation.contactPhoneNumber;
  MessagingEvents.item(
    organizationId,
    {
      eventType: change.userId ? "ConversationAssigned" : "ConversationUnassigned",
      eventCategory: "Conversation",
      description:
        (assignee ? `Conversation with ${who} assigned to ${assignee}` : `Conversation with ${who} unassigned`) +
        (change.because ? ` (${change.because}).` : "."),
      summary: change.userId ? "Assigned" : "Unassigned",
      conversationId: conversation.id,
      ...(conversation.leadId ? { leadId: conversation.leadId } : {}),
      ...ownerOf({ assignedUserId: change.userId }),
      relatedEntityType: "Conversation",
      relatedEntityId: conversation.id,
      status: change.userId ? "Assigned" : "Unassigned",
      ...(change.userId ? { statusReason: `user:${change.userId}` } : {}),
      toPhoneNumber: conversation.contactPhoneNumber,
      actor,
    },
    transaction,
  );
  try {
    await transact(transaction);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failed("conversation")) return undefined;
    throw error;
  }
  return { ...conversation, assignedUserId: change.userId, assignedAt, assignedBy: change.by };
}

/**
 * `PUT /conversations/{id}/assignee`, under the rules of `PUT /leads/{id}/assignee`: owners, admins and API keys
 * assign, reassign and unassign; an agent may only claim an unassigned conversation for themselves, and only where
 * the organization lets agents claim. Of two changes at once one wins and the other is a 409.
 */
export async function assign(actor: Actor, conversationId: string, input: AssignConversation): Promise<Conversation> {
  const stored = await storedAssignment(actor.organizationId, conversationId);
  if (!stored || !(await mayRead(actor, stored.conversation))) throw new NotFoundError("Conversation", conversationId);
  const { conversation } = stored;
  const { unchanged, claim } = await checkAssigneeChange(
    actor,
    "conversation",
    conversation.assignedUserId,
    input.userId,
  );
  if (unchanged) return conversation;
  const by: ConversationAssignedBy | null = input.userId
    ? { method: claim ? "claim" : "manual", userId: actor.userId ?? null }
    : null;
  // Never older than the version read: a lead assignment recorded a moment before must not look newer than this.
  const at = [nowIso(), stored.changedAt ?? ""].sort().at(-1)!;
  const written = await writeAssignment(
    actor.organizationId,
    stored,
    { userId: input.userId, by, at, ...(claim ? { because: "claimed" } : {}) },
    actor,
  );
  if (!written) throw new ConflictError("The conversation's assignee changed meanwhile; read it again.");
  return written;
}

/**
 * A lead's assignment changed (its `LeadAssigned` / `LeadUnassigned` event at `at`, read from the table's stream):
 * the conversation with the lead's number takes the lead's assignee as it is now, unless the conversation's own
 * assignee changed after `at` (a manual reassignment of the conversation is newer). Reading the lead's current
 * assignee rather than the event's makes stream order irrelevant, and a redelivered event writes nothing.
 */
export async function followLead(organizationId: string, change: { leadId: string; at: string }): Promise<void> {
  const lead = await LeadReads.find(organizationId, change.leadId);
  const phone = lead?.contact.phone?.number;
  if (!phone) return;
  const userId = lead.assignedUserId ?? null;
  for (let attempt = 0; attempt < FOLLOW_ATTEMPTS; attempt++) {
    const found = await Conversations.byPhone(organizationId, phone);
    const stored = found && (await storedAssignment(organizationId, found.id));
    // No conversation yet (it takes the lead's assignee when it starts), or the number's conversation is another lead's.
    if (!stored || (stored.conversation.leadId && stored.conversation.leadId !== change.leadId)) return;
    if (stored.changedAt && stored.changedAt >= change.at) return;
    if (stored.conversation.assignedUserId === userId) return;
    const by: ConversationAssignedBy | null = userId ? { method: "lead", userId: null } : null;
    const written = await writeAssignment(organizationId, stored, {
      userId,
      by,
      at: change.at,
      because: "follows its lead",
    });
    if (written) return;
  }
  throw new Error(`The conversation of lead ${change.leadId} kept changing; the stream retries the event.`);
}
