import { LeadReads } from "#core/leads/reads";
import { Routing } from "#core/routing/index";

/**
 * The phone of the agent a lead is assigned to, when calls may ring them now (an active user, not away, with a
 * phone on their profile); null otherwise, and then a call falls back to the organization's number. A phone that is
 * one of `notAllowed` (the organization's own numbers, the lead itself) is not rung either.
 */
export async function assigneePhone(
  organizationId: string,
  leadId: string | null | undefined,
  notAllowed: Iterable<string>,
): Promise<string | null> {
  if (!leadId) return null;
  const assignee = (await LeadReads.find(organizationId, leadId))?.assignedUserId;
  const phone = assignee ? ((await Routing.reachable(organizationId, assignee))?.phone ?? null) : null;
  return phone && !new Set(notAllowed).has(phone) ? phone : null;
}
