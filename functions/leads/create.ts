import { endpoint } from "#core/http/endpoint";
import { createLead } from "#core/http/operations/leads";
import { HttpResponse } from "#core/http/response";
import * as Leads from "#core/leads/index";

export const handler = endpoint(createLead, async ({ actor, body, resourceId }) => {
  const { lead, created } = await Leads.intake(actor, body, { channel: "Api", leadId: await resourceId() });
  return created ? lead : new HttpResponse(200, lead);
});
