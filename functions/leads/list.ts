import { endpoint } from "#core/http/endpoint";
import { listLeads } from "#core/http/operations/leads";
import { leadsPage } from "#core/leads/list";

export const handler = endpoint(listLeads, ({ actor, body }) => leadsPage(actor, body));
