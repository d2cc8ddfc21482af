import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { phoneNumberRoutes } from "#stacks/definitions";
import { PhoneNumberSchema } from "#core/messaging/phone-numbers";
import {
  AvailableNumbersQuerySchema,
  AvailableNumbersSchema,
  ListPhoneNumbersSchema,
  PhoneNumberUpdateSchema,
} from "#core/messaging/phone-number-admin";
import { PhoneNumberRequestSchema } from "#core/messaging/phone-number-request";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(phoneNumberRoutes);

const idParam = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

export const createPhoneNumber = /* @__PURE__ */ defineOperation({
  operationId: "createPhoneNumber",
  summary: "Buy a phone number at the carrier, or register one the platform's carrier account holds",
  description:
    "`purchase: true` buys the number (pick one from `GET /available-phone-numbers`) at the carrier; otherwise the number must " +
    "already be held by the platform's carrier account, which is checked at the carrier (422 when it is not: nobody can claim " +
    "another business's number). Either way the number's SMS and voice webhooks are pointed at this API at the carrier. " +
    "A number can belong to one organization only (409 otherwise, also when the carrier no longer offers it). It becomes a " +
    "sender candidate at once. Its fee for the rest of the current month (`phoneNumberMonthly` prorated by day) is charged " +
    "from the wallet as it is added: 402 when the wallet is suspended or cannot cover it (nothing is bought then). Every later " +
    "month is charged on the month's first day. 502 when the carrier fails: nothing is kept, the fee is refunded.",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:write",
  body: PhoneNumberRequestSchema,
  success: { status: 201, description: "The stored number", schema: PhoneNumberSchema },
  idempotent: true,
  problems: [400, 401, 402, 403, 409, 413, 415, 422, 429, 502],
  example: {
    phoneNumber: "+12125550123",
    friendlyName: "Main line",
    capabilities: ["sms", "mms", "voice"],
    purchase: true,
  },
});

export const getPhoneNumber = /* @__PURE__ */ defineOperation({
  operationId: "getPhoneNumber",
  summary: "Read one phone number of the current organization",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:read",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  success: { status: 200, description: "The number", schema: PhoneNumberSchema },
  problems: [401, 403, 404, 429],
});

export const listPhoneNumbers = /* @__PURE__ */ defineOperation({
  operationId: "listPhoneNumbers",
  summary: "List the current organization's phone numbers (paging query in the body)",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:read",
  body: ListPhoneNumbersSchema,
  success: { status: 200, description: "A page of numbers", schema: /* @__PURE__ */ pageSchema(PhoneNumberSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});

export const updatePhoneNumber = /* @__PURE__ */ defineOperation({
  operationId: "updatePhoneNumber",
  summary: "Rename a phone number, or give it to an agent as their own",
  description:
    "Fields left out are kept. `friendlyName` null or empty clears it. `assignedUserId` makes it an agent's own number " +
    "(an active user of the organization, 400 otherwise): texts and calls of conversations assigned to that agent go " +
    "out from it unless the conversation sticks to another number, and nobody else's do while a shared number can " +
    "send; null puts it back in the " +
    "shared pool (docs/routing.md). Audited. 404 when the number is not one of the organization's.",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:write",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  body: PhoneNumberUpdateSchema,
  success: { status: 200, description: "The number as changed", schema: PhoneNumberSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { friendlyName: "Sales line" },
});

export const deletePhoneNumber = /* @__PURE__ */ defineOperation({
  operationId: "deletePhoneNumber",
  summary: "Delete a phone number from the current organization (endpoint 12)",
  description:
    "The number is released at the carrier first, then no longer used for lead communication: it is never chosen as a sender " +
    "again, and conversations sticky to it move to another number on their next message (recorded as a ConversationSenderMoved " +
    "event). Problems: 401 without valid credentials; 403 without `phoneNumbers:write`; 404 when the number is not one of the " +
    "organization's (or was deleted already); 502 when the carrier could not release it: the number stays, repeat the DELETE.",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:write",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  success: { status: 204, description: "Deleted; no content" },
  problems: [401, 403, 404, 429, 502],
});

export const listAvailablePhoneNumbers = /* @__PURE__ */ defineOperation({
  operationId: "listAvailablePhoneNumbers",
  summary: "Search numbers the carrier offers for purchase (area code, state, capabilities)",
  description:
    "Asks the carrier now (US local numbers); nothing is held until bought with `POST /phone-numbers` and `purchase: true`. " +
    "`capabilities` is comma-separated (default `sms,voice`), every one required; `limit` 1-50 (default 20). 502 when the carrier fails.",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:read",
  query: AvailableNumbersQuerySchema,
  success: { status: 200, description: "Numbers on offer", schema: AvailableNumbersSchema },
  problems: [400, 401, 403, 429, 502],
});
