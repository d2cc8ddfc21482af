import { endpoint } from "#core/http/endpoint";
import { createPhoneNumber } from "#core/http/operations/phone-numbers";
import { PhoneNumbers } from "#core/messaging/phone-numbers";

export const handler = endpoint(createPhoneNumber, ({ actor, body }) => PhoneNumbers.create(actor, body));
