import * as CarrierRegistration from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { refreshCarrierRegistration } from "#core/http/operations/carrier-registration";

export const handler = endpoint(refreshCarrierRegistration, ({ actor }) => CarrierRegistration.refresh(actor));
