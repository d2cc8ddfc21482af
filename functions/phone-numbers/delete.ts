import { audited } from "#core/http/audited";
import { PhoneNumbers } from "#core/messaging/phone-numbers";
import { endpoint } from "#core/http/endpoint";
import { deletePhoneNumber } from "#core/http/operations/phone-numbers";
import { PhoneNumberCarrier } from "#core/messaging/phone-number-carrier";

export const handler = endpoint(
  deletePhoneNumber,
  audited(
    {
      action: "phoneNumber.removed",
      resourceType: "PhoneNumber",
      before: ({ actor, params }) => PhoneNumbers.fromId(actor, params.phoneNumberId),
    },
    ({ actor, params }) => PhoneNumberCarrier.remove(actor, params.phoneNumberId),
  ),
);
