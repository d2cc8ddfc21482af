import { endpoint } from "#core/http/endpoint";
import { intakeLeadByQuery } from "#core/http/operations/leads";
import { HttpResponse } from "#core/http/response";
import * as Leads from "#core/leads/index";

export const handler = endpoint(intakeLeadByQuery, async ({ actor, query, resourceId }) => {
  const { lead, created } = await Leads.intake(actor, query, { channel: "Intake", leadId: await resourceId() });
  return created ? lead : new HttpResponse(200, lead);
});
