import type { PlannedRead } from "#core/db/items";
import * as LeadReads from "#core/leads/reads";
import { toLead } from "#core/leads/reads";
import { ValidationError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";

/** What messaging needs to know about a lead: its phone, its state (quiet-hours time zone) and its SMS consent. */
export interface Contact {
  leadId: string;
  phone: string | undefined;
  state: string | undefined;
  smsOptedOut: boolean;
}

export async function ofLead(organizationId: string, leadId: string): Promise<Contact | undefined> {
  return contactOf(await LeadReads.find(organizationId, leadId));
}

/** `ofLead`'s read, for a batch with other reads (`readTogether`, consistent like it). */
export function ofLeadRead(organizationId: string, leadId: string): PlannedRead<Contact | undefined> {
  const read = LeadReads.itemRead(organizationId, leadId);
  return { keys: read.keys, from: (items) => contactOf(read.from(items) ? toLead(read.from(items)!) : undefined) };
}

/** The newest lead with this phone number, if any. */
export const leadIdByPhone = (organizationId: string, e164: string) => LeadReads.idByPhone(organizationId, e164);

/**
 * Who a message or a call goes to: the lead's phone (400 at `leadId` when the
 * lead is not in the organization or has no phone), else the number given and
 * the newest lead with it.
 */
export async function recipient(
  organizationId: string,
  input: { leadId?: string; to?: string },
  purpose: "call" | "text",
  /** The lead of `input.leadId` as the caller read it already (with its other reads): not read again. */
  known?: { lead: Lead | undefined },
): Promise<{ to: string; leadId: string | undefined }> {
  if (input.leadId) {
    const contact = known ? contactOf(known.lead) : await ofLead(organizationId, input.leadId);
    if (!contact)
      throw new ValidationError("The lead does not exist in this organization.", [
        { pointer: "/leadId", detail: `Lead ${input.leadId} was not found.` },
      ]);
    if (!contact.phone)
      throw new ValidationError("The lead has no valid phone number.", [
        { pointer: "/leadId", detail: `The lead has no phone number to ${purpose}.` },
      ]);
    return { to: contact.phone, leadId: contact.leadId };
  }
  const to = input.to!;
  return { to, leadId: await leadIdByPhone(organizationId, to) };
}

function contactOf(lead: Lead | undefined): Contact | undefined {
  if (!lead) return undefined;
  return {
    leadId: lead.id,
    phone: lead.contact.phone?.number ?? undefined,
    state: lead.contact.streetAddress?.state ?? undefined,
    smsOptedOut: lead.metadata.smsOptedOut === true,
  };
}
