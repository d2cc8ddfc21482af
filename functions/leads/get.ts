import { endpoint } from "#core/http/endpoint";
import { getLead } from "#core/http/operations/leads";
import * as LeadReads from "#core/leads/reads";

export const handler = endpoint(getLead, ({ actor, params }) => LeadReads.fromId(actor, params.id));
