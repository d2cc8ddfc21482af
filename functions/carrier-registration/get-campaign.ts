import * as CarrierRegistration from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { getCampaign } from "#core/http/operations/carrier-registration";

export const handler = endpoint(getCampaign, ({ actor, params }) =>
  CarrierRegistration.campaign(actor, params.campaignId),
);
