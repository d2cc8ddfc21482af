import type { Actor } from "#core/auth/actor";
import { ValidationError } from "#core/errors";
import { routingSettings } from "#core/routing/settings";
import type { PagingQuery } from "#core/shared/paging";

/**
 * What an agent may see of the organization (docs/routing.md): leads and conversations by their current assignee;
 * calls, messages and events by `assignedUserId`, the assignee of their conversation or lead when they were written.
 */

/** Whose something is: a lead or conversation (assigned, or offered to some), or what was written about one. */
export interface Owned {
  assignedUserId?: string | null;
  offeredTo?: readonly string[];
}

/** Whether an agent is held to their own leads: the organization's "agents see only theirs" setting. */
export async function heldToTheirOwn(actor: Actor): Promise<boolean> {
  return actor.role === "agent" && !(await routingSettings(actor.organizationId)).agentsSeeAllLeads;
}

/** Whether this is the caller's: assigned (or offered) to them, or written for them. */
export const isTheirs = (actor: Actor, subject: Owned) =>
  (subject.assignedUserId ?? null) === actor.userId || (subject.offeredTo ?? []).includes(actor.userId ?? "");

/**
 * Whether the caller may read this lead or conversation (an agent held to their own leads reads only those assigned
 * or offered to them), or this call or message: one written for them, or one whose conversation is theirs now
 * (`current` reads it, only when asked), so the agent a lead passes to reads its history.
 */
export async function mayRead(
  actor: Actor,
  subject: Owned,
  current?: () => Promise<Owned | undefined>,
): Promise<boolean> {
  if (isTheirs(actor, subject) || !(await heldToTheirOwn(actor))) return true;
  const now = current ? await current() : undefined;
  return now !== undefined && isTheirs(actor, now);
}

/**
 * A listing (leads, conversations, calls, events) as the caller may see it: the `assignedUserId` filter's values
 * `mine` (the calling user) and `unassigned` (null) spelled out, and for an agent held to their own leads a filter on
 * themselves added (`theirsOnly`: the caller decided that already, e.g. the events of a lead the agent may read).
 */
export async function visibleQuery(actor: Actor, query: PagingQuery, theirsOnly?: boolean): Promise<PagingQuery> {
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
  if (theirsOnly ?? (await heldToTheirOwn(actor))) filters.push({ field: "assignedUserId", value: actor.userId! });
  return { ...query, filters };
}
