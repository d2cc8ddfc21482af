import { mayRead } from "#core/routing/visibility";
import { table, type PlannedRead } from "#core/db/items";
import { LeadEntity, type StoredLead } from "#core/db/entities/leads";
import type { Actor } from "#core/auth/actor";
import { keys } from "#core/db/keys";
import { NotFoundError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";

// The reads of leads, apart from `Leads`' intake and assignment (which bring routing, sources, audit and the intake's
// phone parsing): a handler or aggregate that only reads a lead imports `LeadReads`; `Leads` spreads it.

/** The newest lead with this phone number, if any (leads by phone). */
export async function idByPhone(organizationId: string, e164: string): Promise<string | undefined> {
  const phone = { organizationId, contact: { phone: { number: e164 } } } as Partial<StoredLead>;
  const { Items } = await table.query(
    LeadEntity.queryPartition("byPhone", phone, {
      range: { beginsWith: LeadEntity.sortKey("byPhone", {}) },
      forward: false,
      limit: 1,
    }),
  );
  return Items?.[0]?.id as string | undefined;
}

export async function fromId(actor: Actor, leadId: string): Promise<Lead> {
  const lead = await find(actor.organizationId, leadId);
  if (!lead || !(await mayRead(actor, lead))) throw new NotFoundError("Lead", leadId);
  return lead;
}

/** A lead's stored item (its consent fields too) as a read others batch with theirs (`readTogether`); undefined when absent. */
export const itemRead = (organizationId: string, leadId: string): PlannedRead<Record<string, unknown> | undefined> => ({
  keys: [keys.lead(organizationId, leadId)],
  from: ([item]) => item,
});

/** A lead of the organization, read consistently; undefined when absent. */
export async function find(organizationId: string, leadId: string): Promise<Lead | undefined> {
  const { Item } = await table.get({ Key: keys.lead(organizationId, leadId), ConsistentRead: true });
  return Item ? toLead(Item) : undefined;
}

export function toLead(item: Record<string, unknown>): Lead {
  const { organizationId: _organizationId, sweepDueAt: _sweepDueAt, ...lead } = LeadEntity.fromItem(item);
  return {
    ...lead,
    needsAttention: item.needsAttention === true,
    offeredTo: (item.offeredTo as string[] | null | undefined) ?? [],
  };
}
