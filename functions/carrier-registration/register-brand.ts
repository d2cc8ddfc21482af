import * as CarrierRegistration from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { registerBrand } from "#core/http/operations/carrier-registration";

export const handler = endpoint(registerBrand, async ({ actor, body, resourceId }) =>
  CarrierRegistration.registerBrand(actor, body, await resourceId()),
);
