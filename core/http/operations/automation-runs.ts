import * as v from "valibot";
import { AutomationRunSchema, RunParamsSchema, StartRunSchema } from "#core/automations/runs/model";
import { ListRunsSchema } from "#core/automations/runs/records";
import { routedBy } from "#core/http/operation";
import { automationRunRoutes } from "#stacks/definitions";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(automationRunRoutes);

const AutomationIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const listAutomationRuns = /* @__PURE__ */ defineOperation({
  operationId: "listAutomationRuns",
  summary: "List one automation's runs, newest first (paging query in the body)",
  description:
    "Filters: `status`, `leadId`, `automationVersion`, `triggerType`; ranges and sorting on `createdAt` and `finishedAt`.",
  tag: "Automations",
  auth: "bearer",
  permission: "automations:read",
  params: AutomationIdParams,
  body: ListRunsSchema,
  success: { status: 200, description: "A page of runs", schema: /* @__PURE__ */ pageSchema(AutomationRunSchema) },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { pageSize: 20, filters: [{ field: "status", value: "Failed" }] },
});

export const getAutomationRun = /* @__PURE__ */ defineOperation({
  operationId: "getAutomationRun",
  summary: "Read one run: status, version, path taken and every step's input, output, timing and error",
  tag: "Automations",
  auth: "bearer",
  permission: "automations:read",
  params: RunParamsSchema,
  success: { status: 200, description: "The run", schema: AutomationRunSchema },
  problems: [401, 403, 404, 429],
});

export const startAutomationRun = /* @__PURE__ */ defineOperation({
  operationId: "startAutomationRun",
  summary: "Start a manual run of the automation for one lead (the test button)",
  description:
    "Answers 202 once the run is stored; its steps execute afterwards (read the run for its status). Works on a disabled automation too. Honours `Idempotency-Key`.",
  tag: "Automations",
  auth: "bearer",
  permission: "automations:write",
  params: AutomationIdParams,
  body: StartRunSchema,
  idempotent: true,
  success: { status: 202, description: "The run, Pending or already finished", schema: AutomationRunSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { leadId: "01JLEAD0000000000000000000" },
});

export const retryAutomationRun = /* @__PURE__ */ defineOperation({
  operationId: "retryAutomationRun",
  summary: "Retry a failed run from the step that failed",
  description:
    "Steps that succeeded are not repeated; the failed step runs again with a new side-effect key, on the run's own automation version. 409 unless the run is Failed.",
  tag: "Automations",
  auth: "bearer",
  permission: "automations:write",
  params: RunParamsSchema,
  bodyRequired: false,
  success: { status: 202, description: "The run, Running again", schema: AutomationRunSchema },
  idempotent: true,
  problems: [401, 403, 404, 409, 429],
});
