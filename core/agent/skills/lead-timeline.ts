import * as v from "valibot";
import { leadSummary, describeLead } from "#core/agent/skills/lead-summary";
import { defineSkill, ulidInText } from "#core/agent/skills/skill";
import { listEvents } from "#core/events/list";
import * as LeadReads from "#core/leads/reads";

/** One lead's events, newest first, from the events listing (`POST /events/all/my?leadId=`). */
export const leadTimeline = defineSkill({
  permissions: ["leads:read", "events:read"],
  input: v.strictObject({
    leadId: v.pipe(v.string(), v.trim(), v.minLength(1, "leadId is required."), v.maxLength(64)),
    pageSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)), 20),
    continuationToken: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  }),
  fromText: (text) => {
    const id = ulidInText.exec(text)?.[0];
    return id ? { leadId: id.toUpperCase() } : {};
  },
  async run(actor, input) {
    const lead = leadSummary(await LeadReads.fromId(actor, input.leadId));
    const page = await listEvents(
      actor,
      { leadId: input.leadId },
      { pageSize: input.pageSize, continuationToken: input.continuationToken },
      false, // the whole timeline of a lead the caller may read (LeadReads.fromId above)
    );
    // Spec 2.5 lists every field on every event; the agent answer keeps the ones this event has.
    const events = page.items.map((event) =>
      Object.fromEntries(Object.entries(event).filter(([, value]) => value !== null)),
    );
    const lines = page.items.map(
      (event) =>
        `${event.createdAt} ${event.eventType}${(event.summary ?? event.description) ? `: ${event.summary ?? event.description}` : ""}`,
    );
    const text =
      events.length === 0
        ? `No events yet for ${describeLead(lead)}.`
        : `${events.length} most recent event${events.length === 1 ? "" : "s"} for ${describeLead(lead)}, newest first:\n${lines.join("\n")}` +
          (page.continuationToken ? "\nOlder events are available with the continuationToken." : "");
    return { text, data: { lead, events, continuationToken: page.continuationToken } };
  },
});
