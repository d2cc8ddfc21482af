import { endpoint } from "#core/http/endpoint";
import { listLeads } from "#core/http/operations/leads";
import { Leads } from "#core/leads/index";

export const handler = endpoint(listLeads, ({ actor, body }) => Leads.list(actor, body));
