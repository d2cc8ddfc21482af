import { endpoint } from "#core/http/endpoint";
import { deletePhoneNumber } from "#core/http/operations/phone-numbers";
import { PhoneNumbers } from "#core/messaging/phone-numbers";

export const handler = endpoint(deletePhoneNumber, ({ actor, params }) => PhoneNumbers.remove(actor, params.phoneNumberId));
