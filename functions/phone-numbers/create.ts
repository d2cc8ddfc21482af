import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { createPhoneNumber } from "#core/http/operations/phone-numbers";
import { PhoneNumberCarrier } from "#core/messaging/phone-number-carrier";

export const handler = endpoint(
  createPhoneNumber,
  audited({ action: "phoneNumber.added", resourceType: "PhoneNumber" }, async ({ actor, body, resourceId }) =>
    PhoneNumberCarrier.create(actor, body, { phoneNumberId: await resourceId() }),
  ),
);
