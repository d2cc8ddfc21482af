import type { Actor } from "#core/auth/actor";
import type { Automation } from "#core/automations/index";
import * as Engine from "#core/automations/runs/engine";
import type { AutomationRun, StartRunRequest } from "#core/automations/runs/model";
import { storedRun } from "#core/automations/runs/records";
import { publicRun, storedAutomation } from "#core/automations/runs/store";
import { ConflictError, NotFoundError, ValidationError } from "#core/errors";
import * as LeadReads from "#core/leads/reads";
import { newId } from "#core/shared/ids";

/** Runs a person starts: the test button and the retry of a failed run. */

/**
 * `POST /automations/{id}/runs`: a manual run for one lead (the test button), also for a disabled automation.
 * It starts from the Manual trigger, else the first enabled trigger, unless `triggerId` names one.
 *
 * `startId`: fixed by the request's Idempotency-Key, it names the manual trigger event; a run is claimed once per
 * trigger event (RunStore.create), so a retry after the first request died answers (and resumes) that run.
 */
export async function start(
  actor: Actor,
  automationId: string,
  input: StartRunRequest,
  options: { startId?: string } = {},
): Promise<AutomationRun> {
  const automation = await storedAutomation(actor.organizationId, automationId);
  if (!automation) throw new NotFoundError("Automation", automationId);
  const lead = await LeadReads.find(actor.organizationId, input.leadId);
  if (!lead)
    throw new ValidationError("The lead does not exist in this organization.", [
      { pointer: "/leadId", detail: `Lead ${input.leadId} was not found.` },
    ]);
  const trigger = chooseTrigger(automation, input.triggerId);
  const { run } = await Engine.start(automation, trigger, {
    id: `manual:${options.startId ?? newId()}`,
    type: "Manual",
    leadId: lead.id,
    data: { requestedBy: actor.displayName },
  });
  return publicRun(run);
}

/** `POST /automations/{id}/runs/{runId}/retry`: continues a Failed run from the failed step (202). */
export async function retry(actor: Actor, automationId: string, runId: string): Promise<AutomationRun> {
  const run = await storedRun(actor, automationId, runId);
  if (run.status !== "Failed" || !run.steps.some((step) => step.status === "Failed" || step.status === "Blocked")) {
    throw new ConflictError(`Only a run that failed at a step can be retried; this run is ${run.status}.`);
  }
  return publicRun(await Engine.retry(run));
}

function chooseTrigger(automation: Automation, triggerId: string | undefined) {
  if (triggerId) {
    const named = automation.triggers.find((trigger) => trigger.id === triggerId);
    if (!named)
      throw new ValidationError("The automation has no such trigger.", [
        { pointer: "/triggerId", detail: `No trigger "${triggerId}" in this automation.` },
      ]);
    return named;
  }
  const enabled = automation.triggers.filter((trigger) => trigger.isEnabled);
  const chosen = enabled.find((trigger) => trigger.type === "Manual") ?? enabled[0];
  if (!chosen)
    throw new ValidationError("The automation has no enabled trigger to start from.", [
      { pointer: "/triggerId", detail: "Add a Manual trigger or enable one." },
    ]);
  return chosen;
}
