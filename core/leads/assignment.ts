import type { Actor } from "#core/auth/actor";
import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { Transaction, TransactionConditionFailed, transact } from "#core/db/transact";
import { ConflictError, NotFoundError, ValidationError } from "#core/errors";
import * as Events from "#core/events/index";
import { ownerOf } from "#core/events/index";
import { toLead } from "#core/leads/reads";
import { LeadEntity, leadName } from "#core/db/entities/leads";
import { applied } from "#core/db/entity";
import { where } from "#core/db/expression";
import type { AssignLead, Lead } from "#core/leads/schemas";
import { checkAssigneeChange } from "#core/leads/assignee-rules";
import { mayRead } from "#core/routing/visibility";
import * as Routing from "#core/routing/index";
import { type NoOneReason, type RoutingPick } from "#core/routing/index";
import { openHolder } from "#core/leads/open-leads";
import { nowIso } from "#core/shared/ids";
import * as UserLookups from "#core/users/lookups";

/** Event types of who works a lead (each on the lead's timeline): its assignment, offers and notes (core/leads/notes.ts). */
export type LeadAssignmentEventType = "LeadAssigned" | "LeadUnassigned" | "LeadOffered" | "LeadNoteAdded";

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
export async function routeLead(organizationId: string, leadId: string, current?: Lead): Promise<Lead | undefined> {
  // A lead just processed is known as stored: routing starts from it (its write's condition still guards "never
  // routed"), and answers it as routing left it (undefined when someone else's write got there first).
  if (current) {
    const routed = await routeByRules(organizationId, current, "rule");
    return routed ? routed.lead : current;
  }
  const item = await table.get({ Key: keys.lead(organizationId, leadId), ConsistentRead: true });
  if (!item.Item || item.Item.routedAt) return undefined;
  await routeByRules(organizationId, toLead(item.Item), "rule");
  return undefined;
}

/** Where routing by the rules left a lead: assigned (to whom), flagged (why), or already taken by someone else. */
export type RoutingOutcome = {
  assignedUserId: string | null;
  outcome: "Assigned" | "AssignedToOwner" | "AlreadyAssigned" | "Offered" | NoOneReason;
};

/**
 * Routes a lead by the organization's rules: `rule` is the first routing of a processed lead (conditioned on "never
 * routed"), `automation` an AssignLead step routing a lead again (conditioned on "still unassigned", so a lead
 * somebody took meanwhile keeps its assignee).
 */
async function routeByRules(
  organizationId: string,
  lead: Lead,
  method: "rule" | "automation",
): Promise<(RoutingOutcome & { lead?: Lead }) | undefined> {
  for (let attempt = 0; attempt < ROUTING_ATTEMPTS; attempt++) {
    const pick = await Routing.pick(organizationId, lead);
    if (!pick) return undefined;
    const transaction = new Transaction();
    // The user's cap counts: a refusal means another lead reached the cap first.
    if (pick.kind === "assign") transaction.include("caps", ...pick.writes);
    const routed = routedWrite(organizationId, lead, pick, method);
    transaction.update("lead", routed.update);
    if (pick.kind === "assign" || pick.kind === "fallback") {
      const by = assignedBy(pick, method);
      Events.item(organizationId, await assignmentEvent(organizationId, lead, pick.userId, by), transaction);
    }
    if (pick.kind === "offer") Events.item(organizationId, offerEvent(lead, pick), transaction);
    try {
      await transact(transaction);
      const written = applied(lead, routed.changes);
      if (pick.kind === "assign") return { assignedUserId: pick.userId, outcome: "Assigned", lead: written };
      if (pick.kind === "fallback") return { assignedUserId: pick.userId, outcome: "AssignedToOwner", lead: written };
      return { assignedUserId: null, outcome: pick.kind === "offer" ? "Offered" : pick.reason, lead: written };
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      if (error.failed("lead")) {
        const now = await table.get({ Key: keys.lead(organizationId, lead.id), ConsistentRead: true });
        return { assignedUserId: (now.Item?.assignedUserId as string | null) ?? null, outcome: "AlreadyAssigned" };
      }
      // The user reached a cap since the pick read it (another lead got there first): pick again.
      if (!error.failed("caps")) throw error;
    }
  }
  throw new Error(`Routing lead ${lead.id} found its pick capped ${ROUTING_ATTEMPTS} times; the queue retries it.`);
}

/** A rule's assignment says the rule (and whether an automation asked); the owner fallback says it was the fallback. */
function assignedBy(pick: Extract<RoutingPick, { kind: "assign" | "fallback" }>, method: "rule" | "automation") {
  return { method: pick.kind === "fallback" ? "fallback" : method, ruleId: pick.ruleId, userId: null } as AssignedBy;
}

function routedWrite(organizationId: string, lead: Lead, pick: RoutingPick, method: "rule" | "automation") {
  const at = nowIso();
  const changes =
    pick.kind === "assign" || pick.kind === "fallback"
      ? {
          routedAt: at,
          assignedUserId: pick.userId,
          assignedAt: at,
          assignedBy: assignedBy(pick, method),
          needsAttention: false,
          modifiedAt: at,
          // Open for the user until the lead is answered or reassigned (their open-leads cap counted it).
          ...(pick.kind === "assign" && pick.holdsOpen ? { openFor: pick.userId } : {}),
          // Why the rules could not place it, kept for diagnosis as an unassigned lead keeps it.
          ...(pick.kind === "fallback" ? { routingOutcome: pick.reason } : {}),
        }
      : pick.kind === "offer"
        ? { routedAt: at, offeredTo: pick.userIds, needsAttention: false, routingOutcome: "Offered", modifiedAt: at }
        : { routedAt: at, needsAttention: true, routingOutcome: pick.reason };
  const condition = method === "rule" ? where.all(where.stored(), where.absent("routedAt"), unassigned) : unassigned;
  const update = LeadEntity.update({ ...lead, organizationId }, changes, {
    condition: method === "rule" ? condition : where.all(where.stored(), condition),
  });
  return { changes, update };
}

/**
 * An automation's AssignLead step: to `userId` (assign or reassign; an inactive or unknown user is refused), or
 * without one by the routing rules when the lead has no assignee yet (one that has keeps it). Repeating it changes
 * nothing more, so a redelivered step is harmless.
 */
export async function assignByAutomation(
  actor: Actor,
  leadId: string,
  userId: string | undefined,
): Promise<RoutingOutcome> {
  const { Item } = await table.get({ Key: keys.lead(actor.organizationId, leadId), ConsistentRead: true });
  if (!Item) throw new NotFoundError("Lead", leadId);
  const lead = toLead(Item);
  if (userId) {
    if (lead.assignedUserId === userId) return { assignedUserId: userId, outcome: "AlreadyAssigned" };
    await writeAssignment(actor, lead, userId, { method: "automation", ruleId: null, userId: null });
    return { assignedUserId: userId, outcome: "Assigned" };
  }
  if (lead.assignedUserId) return { assignedUserId: lead.assignedUserId, outcome: "AlreadyAssigned" };
  const routed = await routeByRules(actor.organizationId, lead, "automation");
  if (!routed) return { assignedUserId: null, outcome: "NoRuleMatched" };
  // The step's output is the outcome alone, not the lead as routing left it.
  const { lead: _routedLead, ...outcome } = routed;
  return outcome;
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
  const { unchanged, claim } = await checkAssigneeChange(
    actor,
    "lead",
    lead.assignedUserId,
    input.userId,
    lead.offeredTo,
  );
  if (unchanged) return lead;
  const by: AssignedBy | null = input.userId
    ? { method: claim ? "claim" : "manual", ruleId: null, userId: actor.userId ?? null }
    : null;
  return writeAssignment(actor, lead, input.userId, by);
}

/** Writes the lead's new assignee (checked active) with its event, conditioned on the assignee read (409 otherwise). */
async function writeAssignment(actor: Actor, lead: Lead, userId: string | null, by: AssignedBy | null) {
  if (userId && !(await UserLookups.standing(actor.organizationId, userId))?.active) {
    throw new ValidationError("The lead can only be assigned to an active user of the organization.", [
      { pointer: "/userId", detail: `No active user ${userId}.` },
    ]);
  }
  const at = nowIso();
  const changes = {
    assignedUserId: userId,
    assignedAt: userId ? at : null,
    assignedBy: by,
    needsAttention: false,
    modifiedAt: at,
  };
  const previous = lead.assignedUserId ? where.equals("assignedUserId", lead.assignedUserId) : unassigned;
  // A lead open for its previous assignee stops counting against their open-leads cap.
  const openFor = await openHolder(actor.organizationId, lead.id);
  const transaction = new Transaction().update(
    "lead",
    LeadEntity.update(
      { ...lead, organizationId: actor.organizationId },
      { ...changes, ...(openFor ? { openFor: null } : {}) },
      { condition: where.all(where.stored(), previous) },
    ),
  );
  if (openFor) transaction.include("open", Routing.openLeadClosed(actor.organizationId, openFor));
  Events.item(actor.organizationId, await assignmentEvent(actor.organizationId, lead, userId, by, actor), transaction);
  try {
    await transact(transaction);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failed("lead"))
      throw new ConflictError("The lead's assignee changed meanwhile; read it again.");
    throw error;
  }
  return { ...lead, ...changes };
}

/**
 * A first-to-claim rule offered the lead to a pool (`LeadOffered`, committed with the offer): on the lead's timeline,
 * and what tells the pool to claim it (core/alerts). Whoever claims it records `LeadAssigned` as any assignment does.
 */
function offerEvent(lead: Lead, pick: Extract<RoutingPick, { kind: "offer" }>) {
  return {
    eventType: "LeadOffered" as const,
    eventCategory: "Lead",
    timelineCategory: "Lead",
    timelineType: "Lead" as const,
    description: `Lead ${leadLabel(lead)} offered to ${pick.userIds.length} agent(s): the first to claim it gets it.`,
    summary: "Offered",
    leadId: lead.id,
    relatedEntityType: "Lead",
    relatedEntityId: lead.id,
    status: "Offered",
    statusReason: `rule:${pick.ruleId}`,
    ...(lead.sourceId ? { sourceId: lead.sourceId } : {}),
    createdAt: nowIso(),
    createdBy: "routing",
    actorDisplayName: "Lead routing",
  };
}

/** How a lead is named in descriptions and alerts: its contact's name, else its phone, e-mail or id. */
export function leadLabel(lead: Lead): string {
  return leadName(lead) || lead.contact.phone?.number || lead.contact.email || lead.id;
}

async function assignmentEvent(
  organizationId: string,
  lead: Lead,
  userId: string | null,
  by: AssignedBy | null,
  actor?: Actor,
) {
  const at = nowIso();
  const who = leadLabel(lead);
  const assignee = userId ? ((await UserLookups.standing(organizationId, userId))?.name ?? userId) : null;
  const how =
    by?.method === "fallback"
      ? ` by the routing fallback to an owner (${by.ruleId ? `nobody in rule ${by.ruleId}'s pool could take it` : "no routing rule matched"})`
      : (by?.ruleId ? ` by routing rule ${by.ruleId}` : "") +
        (by?.method === "automation" ? " (automation)" : by?.method === "claim" ? " (claimed)" : "");
  return {
    eventType: userId ? ("LeadAssigned" as const) : ("LeadUnassigned" as const),
    eventCategory: "Lead",
    timelineCategory: "Lead",
    timelineType: "Lead" as const,
    description: assignee ? `Lead ${who} assigned to ${assignee}${how}.` : `Lead ${who} unassigned.`,
    summary: userId ? "Assigned" : "Unassigned",
    leadId: lead.id,
    // The lead's new assignee owns the event (an unassignment is nobody's).
    ...ownerOf({ assignedUserId: userId }),
    relatedEntityType: "User",
    ...(userId ? { relatedEntityId: userId } : {}),
    status: userId ? "Assigned" : "Unassigned",
    ...(by?.method === "fallback"
      ? { statusReason: "fallback:owner" }
      : by?.ruleId
        ? { statusReason: `rule:${by.ruleId}` }
        : {}),
    ...(lead.sourceId ? { sourceId: lead.sourceId } : {}),
    createdAt: at,
    createdBy: actor?.userId ?? (actor?.apiKeyId ? `apiKey:${actor.apiKeyId}` : "routing"),
    ...(actor?.userId ? { actorUserId: actor.userId } : {}),
    actorDisplayName: actor?.displayName ?? "Lead routing",
  };
}
