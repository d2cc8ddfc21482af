import * as CarrierRegistration from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { getBrand } from "#core/http/operations/carrier-registration";

export const handler = endpoint(getBrand, ({ actor }) => CarrierRegistration.brand(actor));
