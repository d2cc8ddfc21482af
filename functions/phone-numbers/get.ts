import { endpoint } from "#core/http/endpoint";
import { getPhoneNumber } from "#core/http/operations/phone-numbers";
import * as PhoneNumbers from "#core/messaging/phone-numbers";

export const handler = endpoint(getPhoneNumber, ({ actor, params }) =>
  PhoneNumbers.fromId(actor, params.phoneNumberId),
);
