import { AutomationRuns } from "#core/automations/runs/index";
import { endpoint } from "#core/http/endpoint";
import { getAutomationRun } from "#core/http/operations/automation-runs";

export const handler = endpoint(getAutomationRun, ({ actor, params }) => AutomationRuns.fromId(actor, params.id, params.runId));
