import type { Actor } from "#core/auth/actor";
import { ConflictError, ForbiddenError, ValidationError } from "#core/errors";
import { routingSettings } from "#core/routing/settings";
import * as UserLookups from "#core/users/lookups";

/**
 * The rules of a change of assignee, a lead's and a conversation's alike (docs/permissions.md): owners, admins and API
 * keys set any active user or none; an agent may only claim an unassigned one for themselves, and only where the
 * organization lets agents claim or a first-to-claim rule offered it to them (`offeredTo`). Throws the refusal; answers whether nothing changes and whether it is a claim.
 */
export async function checkAssigneeChange(
  actor: Actor,
  what: "lead" | "conversation",
  current: string | null,
  requested: string | null,
  offeredTo: readonly string[] = [],
): Promise<{ unchanged: boolean; claim: boolean }> {
  const claim = actor.role === "agent";
  if (claim) {
    // One offered by a first-to-claim rule may be claimed by those it was offered to (and only them).
    const allowed =
      offeredTo.length > 0
        ? offeredTo.includes(actor.userId ?? "")
        : (await routingSettings(actor.organizationId)).agentsMayClaim;
    if (!allowed || requested !== actor.userId)
      throw new ForbiddenError(
        `An agent may only claim an unassigned ${what} for themselves, where the organization allows it or it was offered to them.`,
      );
    if (current && current !== actor.userId)
      throw new ConflictError(`The ${what} is already assigned to someone else.`);
  }
  if (current === requested) return { unchanged: true, claim };
  if (requested && !(await UserLookups.standing(actor.organizationId, requested))?.active) {
    throw new ValidationError(`The ${what} can only be assigned to an active user of the organization.`, [
      { pointer: "/userId", detail: `No active user ${requested}.` },
    ]);
  }
  return { unchanged: false, claim };
}
