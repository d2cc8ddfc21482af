import * as TollFreeVerifications from "#core/carrier-registration/toll-free";
import { endpoint } from "#core/http/endpoint";
import { getTollFreeVerification } from "#core/http/operations/carrier-registration";

export const handler = endpoint(getTollFreeVerification, ({ actor, params }) =>
  TollFreeVerifications.get(actor, params.phoneNumberId),
);
