import * as AutomationRunRecords from "#core/automations/runs/records";
import { endpoint } from "#core/http/endpoint";
import { getAutomationRun } from "#core/http/operations/automation-runs";

export const handler = endpoint(getAutomationRun, ({ actor, params }) =>
  AutomationRunRecords.fromId(actor, params.id, params.runId),
);
