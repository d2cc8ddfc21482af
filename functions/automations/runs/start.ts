import * as ManualRuns from "#core/automations/runs/manual";
import { endpoint } from "#core/http/endpoint";
import { startAutomationRun } from "#core/http/operations/automation-runs";

export const handler = endpoint(startAutomationRun, async ({ actor, params, body, resourceId }) =>
  ManualRuns.start(actor, params.id, body, { startId: await resourceId() }),
);
