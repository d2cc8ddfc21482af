import { endpoint } from "#core/http/endpoint";
import { deletePhoneNumber } from "#core/http/operations/phone-numbers";
import * as PhoneNumberCarrier from "#core/messaging/phone-number-carrier";

export const handler = endpoint(deletePhoneNumber, ({ actor, params }) =>
  PhoneNumberCarrier.remove(actor, params.phoneNumberId),
);
