import { endpoint } from "#core/http/endpoint";
import { resumePhoneNumber } from "#core/http/operations/carrier-registration";
import * as NumberHealth from "#core/messaging/number-health";

export const handler = endpoint(resumePhoneNumber, ({ actor, params }) =>
  NumberHealth.resume(actor, params.phoneNumberId),
);
