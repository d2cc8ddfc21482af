import * as TollFreeVerifications from "#core/carrier-registration/toll-free";
import { endpoint } from "#core/http/endpoint";
import { submitTollFreeVerification } from "#core/http/operations/carrier-registration";

export const handler = endpoint(submitTollFreeVerification, async ({ actor, params, body, resourceId }) =>
  TollFreeVerifications.submit(actor, params.phoneNumberId, body, await resourceId()),
);
