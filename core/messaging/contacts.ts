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

  /** The newest lead with this phone number, if any. */
  leadIdByPhone: (organizationId: string, e164: string) => Leads.idByPhone(organizationId, e164),

  recordConsent: (organizationId: string, leadId: string, change: ConsentChange) => recordLeadConsent(organizationId, leadId, change),
};
