import type { Lead } from "#core/leads/schemas";

/** The fields an agent needs to recognise a lead; the full lead is `GET /leads/{id}`. */
export function leadSummary(lead: Lead) {
  return {
    id: lead.id,
    createdAt: lead.createdAt,
    firstName: lead.contact.firstName,
    lastName: lead.contact.lastName,
    email: lead.contact.email,
    phone: lead.contact.phone?.number ?? null,
    sourceId: lead.sourceId,
    processingStatus: lead.processingStatus,
    vertical: lead.metadata.vertical,
    product: lead.metadata.product,
    smsOptedOut: lead.metadata.smsOptedOut,
  };
}
export type LeadSummary = ReturnType<typeof leadSummary>;

/** "Ada Lovelace, +12125550123 [01J…]" for text answers. */
export function describeLead(lead: LeadSummary): string {
  const name = [lead.firstName, lead.lastName].filter(Boolean).join(" ") || "(no name)";
  return `${[name, lead.phone ?? lead.email].filter(Boolean).join(", ")} [${lead.id}]`;
}
