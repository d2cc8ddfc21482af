import * as AutomationRunRecords from "#core/automations/runs/records";
import { endpoint } from "#core/http/endpoint";
import { listAutomationRuns } from "#core/http/operations/automation-runs";

export const handler = endpoint(listAutomationRuns, ({ actor, params, body }) =>
  AutomationRunRecords.list(actor, params.id, body),
);
