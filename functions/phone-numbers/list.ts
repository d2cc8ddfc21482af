import { endpoint } from "#core/http/endpoint";
import { listPhoneNumbers } from "#core/http/operations/phone-numbers";
import { PhoneNumbers } from "#core/messaging/phone-numbers";

export const handler = endpoint(listPhoneNumbers, ({ actor, body }) => PhoneNumbers.list(actor, body));
