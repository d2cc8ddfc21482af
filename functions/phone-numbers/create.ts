import { endpoint } from "#core/http/endpoint";
import { createPhoneNumber } from "#core/http/operations/phone-numbers";
import * as PhoneNumberCarrier from "#core/messaging/phone-number-carrier";

export const handler = endpoint(createPhoneNumber, async ({ actor, body, resourceId }) =>
  PhoneNumberCarrier.create(actor, body, { phoneNumberId: await resourceId() }),
);
