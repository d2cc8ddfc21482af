import * as v from "valibot";
import { AutomationRequestSchema, AutomationSchema, ListAutomationsSchema } from "#core/automations/index";
import { speedToLeadExample } from "#core/automations/definition";
import { routedBy } from "#core/http/operation";
import { automationRoutes } from "#stacks/definitions";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(automationRoutes);

const definitionRules =
  "Rules the schema cannot express (each a 400 with the pointer): node ids are unique across triggers, condition groups and actions, and every " +
  "connection names existing nodes; every action is reachable from a trigger; an enabled automation has at least one trigger; a schedule trigger " +
  "gives exactly one of `cron` or `intervalMinutes`; a Wait gives exactly one of `durationSeconds` or `untilTime`; field paths are dot-separated " +
  "names under `contact.`, `metadata.` or `customer.`; HTTP actions may not target private addresses.";

const AutomationIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const createAutomation = /* @__PURE__ */ defineOperation({
  operationId: "createAutomation",
  summary: "Create an automation in the current organization",
  description: definitionRules,
  tag: "Automations",
  auth: "bearer",
  permission: "automations:write",
  body: AutomationRequestSchema,
  success: { status: 201, description: "The stored automation", schema: AutomationSchema },
  idempotent: true,
  problems: [400, 401, 403, 413, 415, 429],
  example: speedToLeadExample,
});

// Built apart from the operation (an interpolated string counts as an effect for the bundler; see analytics.ts).
const updateDescription = `Send the \`version\` you read: a stale one is answered 409. A successful update increments \`version\`. ${definitionRules}`;

export const updateAutomation = /* @__PURE__ */ defineOperation({
  operationId: "updateAutomation",
  summary: "Replace an automation's definition (optimistic concurrency on version)",
  description: updateDescription,
  tag: "Automations",
  auth: "bearer",
  permission: "automations:write",
  params: AutomationIdParams,
  body: AutomationRequestSchema,
  success: { status: 200, description: "The updated automation", schema: AutomationSchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  // Not a spread, which the bundler keeps as an effect (with the schemas beside it) where the operation is unused.
  example: /* @__PURE__ */ Object.assign({}, speedToLeadExample, { version: 1 }),
});

export const getAutomation = /* @__PURE__ */ defineOperation({
  operationId: "getAutomation",
  summary: "Read one automation of the current organization",
  tag: "Automations",
  auth: "bearer",
  permission: "automations:read",
  params: AutomationIdParams,
  success: { status: 200, description: "The automation", schema: AutomationSchema },
  problems: [401, 403, 404, 429],
});

export const listAutomations = /* @__PURE__ */ defineOperation({
  operationId: "listAutomations",
  summary: "List the current organization's automations (paging query in the body)",
  tag: "Automations",
  auth: "bearer",
  permission: "automations:read",
  body: ListAutomationsSchema,
  success: { status: 200, description: "A page of automations", schema: /* @__PURE__ */ pageSchema(AutomationSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {
    pageSize: 20,
    orderBy: [{ field: "name", direction: "asc" }],
    filters: [{ field: "enabled", value: true }],
  },
});

export const deleteAutomation = /* @__PURE__ */ defineOperation({
  operationId: "deleteAutomation",
  summary: "Delete an automation of the current organization",
  tag: "Automations",
  auth: "bearer",
  permission: "automations:write",
  params: AutomationIdParams,
  success: { status: 204, description: "Deleted; no content" },
  problems: [401, 403, 404, 429],
});
