import { endpoint } from "#core/http/endpoint";
import { getPhoneNumberHealth } from "#core/http/operations/carrier-registration";
import * as NumberHealth from "#core/messaging/number-health";

export const handler = endpoint(getPhoneNumberHealth, ({ actor, params }) =>
  NumberHealth.report(actor, params.phoneNumberId),
);
