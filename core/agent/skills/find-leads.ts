import * as v from "valibot";
import { describeLead, leadSummary } from "#core/agent/skills/lead-summary";
import { defineSkill, quotedIn } from "#core/agent/skills/skill";
import { leadsPage } from "#core/leads/list";

/** Searches the organization's leads through `leadsPage` (name, e-mail, phone; filters as `POST /leads/all/my`). */
export const findLeads = defineSkill({
  permissions: ["leads:read"],
  input: v.strictObject({
    search: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200))),
    filters: v.optional(
      v.pipe(
        v.array(v.strictObject({ field: v.string(), value: v.union([v.string(), v.number(), v.boolean(), v.null()]) })),
        v.maxLength(20),
      ),
    ),
    pageSize: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)), 20),
    continuationToken: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  }),
  fromText(text) {
    const search =
      quotedIn(text) ??
      /[\w.+-]+@[\w-]+\.[\w.-]+/.exec(text)?.[0] ??
      /\+?\d[\d\s().-]{6,}\d/.exec(text)?.[0]?.replace(/[\s().-]/g, "") ??
      /\b(?:named|called)\s+([\p{L}'-]+(?:\s+[\p{L}'-]+)?)/iu.exec(text)?.[1];
    return search ? { search } : {};
  },
  async run(actor, input) {
    const page = await leadsPage(actor, { ...input, includeCount: true });
    const leads = page.items.map(leadSummary);
    const matching = input.search ? ` matching "${input.search}"` : "";
    const text =
      leads.length === 0
        ? `No leads${matching}.`
        : `${page.totalCount ?? leads.length} lead${page.totalCount === 1 ? "" : "s"}${matching}, newest first: ${leads.map(describeLead).join("; ")}.` +
          (page.continuationToken ? " More are available with the continuationToken." : "");
    return { text, data: { totalCount: page.totalCount, continuationToken: page.continuationToken, leads } };
  },
});
