import { endpoint } from "#core/http/endpoint";
import { listAvailablePhoneNumbers } from "#core/http/operations/phone-numbers";
import { PhoneNumbers } from "#core/messaging/phone-numbers";

export const handler = endpoint(listAvailablePhoneNumbers, ({ actor, query }) => PhoneNumbers.available(actor, query));
