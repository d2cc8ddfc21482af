import { AutomationRuns } from "#core/automations/runs/index";
import { endpoint } from "#core/http/endpoint";
import { retryAutomationRun } from "#core/http/operations/automation-runs";

export const handler = endpoint(retryAutomationRun, ({ actor, params }) => AutomationRuns.retry(actor, params.id, params.runId));
