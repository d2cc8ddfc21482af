import { endpoint } from "#core/http/endpoint";
import { listAvailablePhoneNumbers } from "#core/http/operations/phone-numbers";
import { PhoneNumbers } from "#core/messaging/phone-numbers";

export const handler = endpoint(listAvailablePhoneNumbers, ({ query }) => PhoneNumbers.available(query));
