import { endpoint } from "#core/http/endpoint";
import { listPhoneNumbers } from "#core/http/operations/phone-numbers";
import * as PhoneNumberAdmin from "#core/messaging/phone-number-admin";

export const handler = endpoint(listPhoneNumbers, ({ actor, body }) => PhoneNumberAdmin.list(actor, body));
