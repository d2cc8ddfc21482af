import { ManualRuns } from "#core/automations/runs/manual";
import { endpoint } from "#core/http/endpoint";
import { startAutomationRun } from "#core/http/operations/automation-runs";

export const handler = endpoint(startAutomationRun, ({ actor, params, body }) =>
  ManualRuns.start(actor, params.id, body),
);
