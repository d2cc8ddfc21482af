import * as v from "valibot";
import { describeLead, leadSummary } from "#core/agent/skills/lead-summary";
import { defineSkill } from "#core/agent/skills/skill";
import { leadsPage } from "#core/leads/list";

/** The calling user's assigned leads (docs/routing.md), newest first: `leadsPage` with the `mine` assignee filter. */
export const myLeads = defineSkill({
  permissions: ["leads:read"],
  input: v.strictObject({
    pageSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)), 20),
    continuationToken: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  }),
  fromText: () => ({}),
  async run(actor, input) {
    // `mine` is the calling user; an API key is nobody's, and the list refuses it (a rejected task).
    const page = await leadsPage(actor, {
      ...input,
      filters: [{ field: "assignedUserId", value: "mine" }],
      includeCount: true,
    });
    const leads = page.items.map(leadSummary);
    const text =
      leads.length === 0
        ? "No leads are assigned to you."
        : `${page.totalCount ?? leads.length} lead${page.totalCount === 1 ? " is" : "s are"} assigned to you, newest first: ${leads.map(describeLead).join("; ")}.` +
          (page.continuationToken ? " More are available with the continuationToken." : "");
    return { text, data: { totalCount: page.totalCount, continuationToken: page.continuationToken, leads } };
  },
});
