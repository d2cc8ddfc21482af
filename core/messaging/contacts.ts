import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { recordLeadConsent, type ConsentChange } from "#core/leads/consent";
import { Leads } from "#core/leads/index";

/** What messaging needs to know about a lead: its phone, its state (quiet-hours time zone) and its SMS consent. */
export interface Contact {
  leadId: string;
  phone: string | undefined;
  state: string | undefined;
  smsOptedOut: boolean;
}

export const Contacts = {
  async ofLead(organizationId: string, leadId: string): Promise<Contact | undefined> {
    const lead = await Leads.find(organizationId, leadId);
    if (!lead) return undefined;
    return {
      leadId: lead.id,
      phone: lead.contact.phone?.number ?? undefined,
      state: lead.contact.streetAddress?.state ?? undefined,
      smsOptedOut: lead.metadata.smsOptedOut === true,
    };
  },

  /** The newest lead with this phone number, if any (gsi2, leads by phone). */
  async leadIdByPhone(organizationId: string, e164: string): Promise<string | undefined> {
    const key = keys.leadsByPhone(organizationId, e164);
    const { Items } = await table.query({
      index: "leadsByPhone",
      KeyConditionExpression: "gsi2pk = :pk AND begins_with(gsi2sk, :prefix)",
      ExpressionAttributeValues: { ":pk": key.gsi2pk, ":prefix": key.gsi2sk },
      ScanIndexForward: false,
      Limit: 1,
    });
    return Items?.[0]?.id as string | undefined;
  },

  recordConsent: (organizationId: string, leadId: string, change: ConsentChange) => recordLeadConsent(organizationId, leadId, change),
};
