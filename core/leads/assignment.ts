import type { Actor } from "#core/auth/actor";
import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { Transaction, TransactionConditionFailed, transact } from "#core/db/transact";
import { ConflictError, NotFoundError } from "#core/errors";
import { Events } from "#core/events/index";
import { toLead } from "#core/leads/index";
import { LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
import type { AssignLead, Lead } from "#core/leads/schemas";
import { checkAssigneeChange } from "#core/leads/assignee-rules";
import { mayRead } from "#core/leads/visibility";
import { Routing, type RoutingPick } from "#core/routing/index";
import { nowIso } from "#core/shared/ids";
import { Users } from "#core/users/index";

/** Event types assignment records (each on the lead's timeline). */
export type LeadAssignmentEventType = "LeadAssigned" | "LeadUnassigned";

type AssignedBy = NonNullable<Lead["assignedBy"]>;

/** How many times routing picks again after a user it picked reached a cap meanwhile (each pick excludes the capped). */
const ROUTING_ATTEMPTS = 50;

const unassigned = where.absentOrNull("assignedUserId");

/**
 * Routes a processed lead once (before its automation trigger is published, core/leads/processing.ts): the lead's
 * assignment, its event and the chosen user's cap counts commit in one transaction conditioned on "this lead was
 * never routed", so a lead is assigned at most once and a cap is never passed. The round-robin position is a ticket
 * taken before (an atomic add, core/routing), so concurrent leads never contend for it. Redelivery and the sweep
 * call this again: a routed lead (`routedAt`) is left as it is.
 */
export async function routeLead(organizationId: string, leadId: string): Promise<void> {
  const item = await table.get({ Key: keys.lead(organizationId, leadId), ConsistentRead: true });
  if (!item.Item || item.Item.routedAt) return;
  const lead = toLead(item.Item);
  for (let attempt = 0; attempt < ROUTING_ATTEMPTS; attempt++) {
    const pick = await Routing.pick(organizationId, lead);
    if (!pick) return;
    const transaction = new Transaction();
    // The user's cap counts: a refusal means another lead reached the cap first.
    if (pick.kind === "assign") transaction.include("caps", ...pick.writes);
    transaction.update("lead", routedWrite(organizationId, lead, pick));
    if (pick.kind === "assign") {
      const by: AssignedBy = { method: "rule", ruleId: pick.ruleId, userId: null };
      Events.item(organizationId, await assignmentEvent(organizationId, lead, pick.userId, by), transaction);
    }
    try {
      await transact(transaction);
      return;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      if (error.failed("lead")) return;
      // The user reached a cap since the pick read it (another lead got there first): pick again.
      if (!error.failed("caps")) throw error;
    }
  }
  throw new Error(`Routing lead ${leadId} found its pick capped ${ROUTING_ATTEMPTS} times; the queue retries it.`);
}

function routedWrite(organizationId: string, lead: Lead, pick: RoutingPick) {
  const at = nowIso();
  const changes =
    pick.kind === "assign"
      ? {
          routedAt: at,
          assignedUserId: pick.userId,
          assignedAt: at,
          assignedBy: { method: "rule", ruleId: pick.ruleId, userId: null },
          needsAttention: false,
          modifiedAt: at,
        }
      : { routedAt: at, needsAttention: true, routingOutcome: pick.reason };
  return LeadEntity.update({ ...lead, organizationId }, changes, {
    condition: where.all(where.stored(), where.absent("routedAt"), unassigned),
  });
}

/**
 * `PUT /leads/{id}/assignee`: owners, admins and API keys assign, reassign and unassign; an agent may only claim an
 * unassigned lead for themselves, and only when the organization allows it. The write is conditioned on the
 * assignee read, so of two people claiming one lead at once one wins and the other gets a 409.
 */
export async function assignLead(actor: Actor, leadId: string, input: AssignLead): Promise<Lead> {
  const { Item } = await table.get({ Key: keys.lead(actor.organizationId, leadId), ConsistentRead: true });
  const lead = Item ? toLead(Item) : undefined;
  if (!lead || !(await mayRead(actor, lead))) throw new NotFoundError("Lead", leadId);
  const { unchanged, claim } = await checkAssigneeChange(actor, "lead", lead.assignedUserId, input.userId);
  if (unchanged) return lead;
  const at = nowIso();
  const by: AssignedBy | null = input.userId
    ? { method: claim ? "claim" : "manual", ruleId: null, userId: actor.userId ?? null }
    : null;
  const previous = lead.assignedUserId ? where.equals("assignedUserId", lead.assignedUserId) : unassigned;
  const transaction = new Transaction().update(
    "lead",
    LeadEntity.update(
      { ...lead, organizationId: actor.organizationId },
      {
        assignedUserId: input.userId,
        assignedAt: input.userId ? at : null,
        assignedBy: by,
        needsAttention: false,
        modifiedAt: at,
      },
      { condition: where.all(where.stored(), previous) },
    ),
  );
  Events.item(
    actor.organizationId,
    await assignmentEvent(actor.organizationId, lead, input.userId, by, actor),
    transaction,
  );
  try {
    await transact(transaction);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failed("lead"))
      throw new ConflictError("The lead's assignee changed meanwhile; read it again.");
    throw error;
  }
  return {
    ...lead,
    assignedUserId: input.userId,
    assignedAt: input.userId ? at : null,
    assignedBy: by,
    needsAttention: false,
    modifiedAt: at,
  };
}

async function assignmentEvent(
  organizationId: string,
  lead: Lead,
  userId: string | null,
  by: AssignedBy | null,
  actor?: Actor,
) {
  const at = nowIso();
  const who =
    [lead.contact.firstName, lead.contact.lastName].filter(Boolean).join(" ") ||
    lead.contact.phone?.number ||
    lead.contact.email ||
    lead.id;
  const assignee = userId ? ((await Users.standing(organizationId, userId))?.name ?? userId) : null;
  const how = by?.method === "rule" ? ` by routing rule ${by.ruleId}` : by?.method === "claim" ? " (claimed)" : "";
  return {
    eventType: userId ? ("LeadAssigned" as const) : ("LeadUnassigned" as const),
    eventCategory: "Lead",
    timelineCategory: "Lead",
    timelineType: "Lead" as const,
    description: assignee ? `Lead ${who} assigned to ${assignee}${how}.` : `Lead ${who} unassigned.`,
    summary: userId ? "Assigned" : "Unassigned",
    leadId: lead.id,
    relatedEntityType: "User",
    ...(userId ? { relatedEntityId: userId } : {}),
    status: userId ? "Assigned" : "Unassigned",
    ...(by?.ruleId ? { statusReason: `rule:${by.ruleId}` } : {}),
    ...(lead.sourceId ? { sourceId: lead.sourceId } : {}),
    createdAt: at,
    createdBy: actor?.userId ?? (actor?.apiKeyId ? `apiKey:${actor.apiKeyId}` : "routing"),
    ...(actor?.userId ? { actorUserId: actor.userId } : {}),
    actorDisplayName: actor?.displayName ?? "Lead routing",
  };
}
