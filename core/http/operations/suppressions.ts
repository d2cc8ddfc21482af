import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { suppressionRoutes } from "#stacks/definitions";
import { ListSuppressionsSchema, SuppressionRequestSchema } from "#core/suppressions/admin";
import { SuppressionSchema } from "#core/suppressions/index";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(suppressionRoutes);

// Declared apart from the operation: a call in an operation's arguments is kept by the bundler as an effect where
// the operation is unused, and with it every schema beside it.
const SuppressionPhoneParams = v.object({ phone: v.pipe(v.string(), v.minLength(1), v.maxLength(40)) });

export const createSuppression = /* @__PURE__ */ defineOperation({
  operationId: "createSuppression",
  summary: "Add a number to the organization's suppression list (never texted again)",
  description: "Idempotent: adding a listed number answers the existing entry.",
  tag: "Suppressions",
  auth: "bearer",
  permission: "suppressions:write",
  body: SuppressionRequestSchema,
  success: { status: 201, description: "The entry", schema: SuppressionSchema },
  idempotent: true,
  problems: [400, 401, 403, 413, 415, 429],
  example: { phoneNumber: "+12125550123", note: "Asked by phone not to be texted" },
});

export const deleteSuppression = /* @__PURE__ */ defineOperation({
  operationId: "deleteSuppression",
  summary: "Remove a number from the suppression list",
  description:
    "`{phone}` is E.164 with the `+` URL-encoded (`%2B12125550123`); a malformed number is a 400, an unlisted one a 404. " +
    "Only a `Manual` entry can be removed: one the contact asked for (`OptOutKeyword`: STOP or an organization keyword; " +
    "`ProviderOptOut`: the carrier's opt-out, error 21610) is lifted only by the contact texting START/UNSTOP, so deleting it is a 409 " +
    "whoever calls. The removal's `SuppressionRemoved` event records the actor.",
  tag: "Suppressions",
  auth: "bearer",
  permission: "suppressions:write",
  params: SuppressionPhoneParams,
  success: { status: 204, description: "Removed; no content" },
  problems: [400, 401, 403, 404, 409, 429],
});

export const listSuppressions = /* @__PURE__ */ defineOperation({
  operationId: "listSuppressions",
  summary: "List the organization's suppression list (paging query in the body)",
  tag: "Suppressions",
  auth: "bearer",
  permission: "suppressions:read",
  body: ListSuppressionsSchema,
  success: { status: 200, description: "A page of entries", schema: /* @__PURE__ */ pageSchema(SuppressionSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});
