import * as CarrierRegistration from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { listCampaigns } from "#core/http/operations/carrier-registration";

export const handler = endpoint(listCampaigns, ({ actor }) => CarrierRegistration.campaigns(actor));
