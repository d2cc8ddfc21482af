import { endpoint } from "#core/http/endpoint";
import { updatePhoneNumber } from "#core/http/operations/phone-numbers";
import { PhoneNumbers } from "#core/messaging/phone-numbers";

export const handler = endpoint(updatePhoneNumber, ({ actor, params, body }) =>
  PhoneNumbers.update(actor, params.phoneNumberId, body),
);
