import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { eventActorFields } from "#core/auth/actor";
import * as Events from "#core/events/index";
import { ownerOf } from "#core/events/index";
import * as LeadReads from "#core/leads/reads";
import { timestamp } from "#core/shared/ids";
import type { AddNote } from "#core/shared/notes";

export const LeadNoteSchema = v.object({
  /** The id of the `LeadNoteAdded` event that holds it. */
  id: v.string(),
  leadId: v.string(),
  body: v.string(),
  authorUserId: v.nullable(v.string()),
  authorName: v.string(),
  createdAt: timestamp,
});
export type LeadNote = v.InferOutput<typeof LeadNoteSchema>;

/**
 * Internal notes on a lead (what a colleague should know: "prefers a call after 5 pm"), also for a lead nobody has
 * texted yet, so one with no conversation. Like a conversation's note (core/messaging/conversation-notes.ts), a note
 * is its `LeadNoteAdded` event record (the text in `summary`): the lead's timeline lists it in order with the
 * messages, calls and assignments, and it is never sent, nor a webhook, nor counted by analytics.
 */

export async function add(actor: Actor, leadId: string, input: AddNote): Promise<LeadNote> {
  const lead = await LeadReads.fromId(actor, leadId); // 404 for a lead this actor may not read
  const event = await Events.record(actor.organizationId, {
    eventType: "LeadNoteAdded",
    eventCategory: "Lead",
    timelineCategory: "Lead",
    timelineType: "Lead",
    description: `Note by ${actor.displayName}`,
    summary: input.body,
    leadId: lead.id,
    ...ownerOf(lead),
    relatedEntityType: "Lead",
    relatedEntityId: lead.id,
    ...eventActorFields(actor),
  });
  return {
    id: event.id,
    leadId: lead.id,
    body: input.body,
    authorUserId: actor.userId ?? null,
    authorName: actor.displayName,
    createdAt: event.createdAt,
  };
}
