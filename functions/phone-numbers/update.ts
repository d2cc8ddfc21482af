import { endpoint } from "#core/http/endpoint";
import { updatePhoneNumber } from "#core/http/operations/phone-numbers";
import * as PhoneNumberAdmin from "#core/messaging/phone-number-admin";

export const handler = endpoint(updatePhoneNumber, ({ actor, params, body }) =>
  PhoneNumberAdmin.update(actor, params.phoneNumberId, body),
);
