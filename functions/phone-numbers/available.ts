import { endpoint } from "#core/http/endpoint";
import { listAvailablePhoneNumbers } from "#core/http/operations/phone-numbers";
import * as PhoneNumberCarrier from "#core/messaging/phone-number-carrier";

export const handler = endpoint(listAvailablePhoneNumbers, ({ actor, query }) =>
  PhoneNumberCarrier.available(actor, query),
);
