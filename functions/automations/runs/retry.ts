import * as ManualRuns from "#core/automations/runs/manual";
import { endpoint } from "#core/http/endpoint";
import { retryAutomationRun } from "#core/http/operations/automation-runs";

export const handler = endpoint(retryAutomationRun, ({ actor, params }) =>
  ManualRuns.retry(actor, params.id, params.runId),
);
