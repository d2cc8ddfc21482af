import * as CarrierRegistration from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { attachPhoneNumberToCampaign } from "#core/http/operations/carrier-registration";

export const handler = endpoint(attachPhoneNumberToCampaign, ({ actor, params, body }) =>
  CarrierRegistration.attachNumber(actor, params.phoneNumberId, body.campaignId),
);
