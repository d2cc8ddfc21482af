import { endpoint } from "#core/http/endpoint";
import { getLead } from "#core/http/operations/leads";
import { Leads } from "#core/leads/index";

export const handler = endpoint(getLead, ({ actor, params }) => Leads.fromId(actor, params.id));
