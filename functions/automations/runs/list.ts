import { AutomationRuns } from "#core/automations/runs/index";
import { endpoint } from "#core/http/endpoint";
import { listAutomationRuns } from "#core/http/operations/automation-runs";

export const handler = endpoint(listAutomationRuns, ({ actor, params, body }) => AutomationRuns.list(actor, params.id, body));
