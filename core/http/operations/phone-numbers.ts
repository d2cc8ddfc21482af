import * as v from "valibot";
import { defineOperation } from "#core/http/operation";
import { ListPhoneNumbersSchema, PhoneNumberRequestSchema, PhoneNumberSchema } from "#core/messaging/phone-numbers";
import { pageSchema } from "#core/shared/paging";

const idParam = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

export const createPhoneNumber = defineOperation({
  operationId: "createPhoneNumber",
  method: "POST",
  path: "/phone-numbers",
  summary: "Add a phone number the organization owns at the provider",
  description:
    "A number can belong to one organization only (409 otherwise). It becomes a sender candidate at once. Its fee for the rest of " +
    "the current month (`phoneNumberMonthly` prorated by day) is charged from the wallet as it is added: 402 when the wallet is " +
    "suspended or cannot cover it. Every later month is charged on the month's first day.",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:write",
  body: PhoneNumberRequestSchema,
  success: { status: 201, description: "The stored number", schema: PhoneNumberSchema },
  problems: [400, 401, 402, 403, 409, 413, 415, 429],
  example: { phoneNumber: "+12125550123", friendlyName: "Main line", capabilities: ["sms", "mms", "voice"] },
});

export const getPhoneNumber = defineOperation({
  operationId: "getPhoneNumber",
  method: "GET",
  path: "/phone-numbers/{phoneNumberId}",
  summary: "Read one phone number of the current organization",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:read",
  params: v.object({ phoneNumberId: idParam }),
  success: { status: 200, description: "The number", schema: PhoneNumberSchema },
  problems: [401, 403, 404, 429],
});

export const listPhoneNumbers = defineOperation({
  operationId: "listPhoneNumbers",
  method: "POST",
  path: "/phone-numbers/all/my",
  summary: "List the current organization's phone numbers (paging query in the body)",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:read",
  body: ListPhoneNumbersSchema,
  success: { status: 200, description: "A page of numbers", schema: pageSchema(PhoneNumberSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});

export const deletePhoneNumber = defineOperation({
  operationId: "deletePhoneNumber",
  method: "DELETE",
  path: "/phone-numbers/{phoneNumberId}",
  summary: "Delete a phone number from the current organization (endpoint 12)",
  description:
    "The number is no longer used for lead communication: it is never chosen as a sender again, and conversations " +
    "sticky to it move to another number on their next message (recorded as a ConversationSenderMoved event).",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:write",
  params: v.object({ phoneNumberId: idParam }),
  success: { status: 204, description: "Deleted; no content" },
  problems: [401, 403, 404, 429],
});
