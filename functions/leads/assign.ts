import { endpoint } from "#core/http/endpoint";
import { assignLead } from "#core/http/operations/leads";
import * as Leads from "#core/leads/index";

export const handler = endpoint(assignLead, ({ actor, params, body }) => Leads.assign(actor, params.id, body));
