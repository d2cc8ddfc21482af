import { endpoint } from "#core/http/endpoint";
import { listLeads } from "#core/http/operations/leads";
import { LeadReads } from "#core/leads/reads";

export const handler = endpoint(listLeads, ({ actor, body }) => LeadReads.list(actor, body));
