import { AutomationRuns } from "#core/automations/runs/index";
import { endpoint } from "#core/http/endpoint";
import { startAutomationRun } from "#core/http/operations/automation-runs";

export const handler = endpoint(startAutomationRun, ({ actor, params, body }) => AutomationRuns.start(actor, params.id, body));
