import * as CarrierRegistration from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { registerCampaign } from "#core/http/operations/carrier-registration";

export const handler = endpoint(registerCampaign, async ({ actor, body, resourceId }) =>
  CarrierRegistration.registerCampaign(actor, body, await resourceId()),
);
