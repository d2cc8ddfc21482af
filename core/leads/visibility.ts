import type { Actor } from "#core/auth/actor";
import { ValidationError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";
import { Routing } from "#core/routing/index";
import type { PagingQuery } from "#core/shared/paging";

/** Whether an agent is held to their own leads: the organization's "agents see only theirs" setting (docs/routing.md). */
async function onlyTheirs(actor: Actor): Promise<boolean> {
  return actor.role === "agent" && !(await Routing.settings(actor.organizationId)).agentsSeeAllLeads;
}

/**
 * Whether the caller may read this lead, or this conversation (an agent held to their own leads reads only those
 * assigned or offered to them).
 */
export async function mayRead(
  actor: Actor,
  subject: Pick<Lead, "assignedUserId"> & { offeredTo?: readonly string[] },
): Promise<boolean> {
  const theirs = subject.assignedUserId === actor.userId || (subject.offeredTo ?? []).includes(actor.userId ?? "");
  return theirs || !(await onlyTheirs(actor));
}

/**
 * The lead listing as the caller may see it: `assignedUserId` filter values `mine` (the calling user) and
 * `unassigned` (null) spelled out, and for an agent held to their own leads a filter on themselves added.
 */
export async function visibleQuery(actor: Actor, query: PagingQuery): Promise<PagingQuery> {
  const filters = (query.filters ?? []).map((filter, index) => {
    if (filter.field !== "assignedUserId") return filter;
    const spell = (value: unknown) => {
      if (value === "unassigned") return null;
      if (value !== "mine") return value;
      if (!actor.userId)
        throw new ValidationError("`mine` names the calling user; an API key is no user.", [
          { pointer: `/filters/${index}/value`, detail: "Use a user id." },
        ]);
      return actor.userId;
    };
    return {
      ...filter,
      value: (Array.isArray(filter.value) ? filter.value.map(spell) : spell(filter.value)) as typeof filter.value,
    };
  });
  if (await onlyTheirs(actor)) filters.push({ field: "assignedUserId", value: actor.userId! });
  return { ...query, filters };
}
