/**
 * What several actions share: rendering a template over the run's lead, the consent basis of an automated contact,
 * and the actor an automation sends and calls as. Imported by the action modules only, so it is a chunk of their own
 * in the split automation-runs consumer, loaded with the first action that needs it.
 */
import { systemActor } from "#core/auth/actor";
import { renderTemplate, type RenderOptions } from "#core/automations/definition";
import { assignedUserValues, leadValue, type TemplateValues } from "#core/automations/runs/evaluate";
import type { ActionContext, ActionOutcome } from "#core/automations/runs/actions";
import type { StoredRun } from "#core/automations/runs/model";
import { basisForContact, type ConsentBasis } from "#core/consent/basis";
import { leadConsentState } from "#core/leads/consent";
import * as UserLookups from "#core/users/lookups";

/** Renders a template over the lead, the organization and (read only when the template names it) the lead's assignee. */
export async function render(context: ActionContext, template: string, options: RenderOptions) {
  const { name, phone, website } = context.organization;
  const values: TemplateValues = { organizationName: name, organizationPhone: phone, organizationWebsite: website };
  const assigneeId = context.lead?.assignedUserId;
  if (assigneeId && template.includes("assignedUser.")) {
    const profile = await UserLookups.standing(context.run.organizationId, assigneeId);
    if (profile) values.assignedUser = assignedUserValues(profile);
  }
  return renderTemplate(template, (path) => leadValue(context.lead, path, values), options);
}

/**
 * The consent basis an automated text or call relies on (core/consent/basis.ts). A lead whose source requires a
 * verified consent it lacks is not contacted: the step is skipped with the rule as its reason, and the run goes on.
 */
export async function automatedContact(
  context: ActionContext,
): Promise<{ basis: ConsentBasis | null } | { skipped: ActionOutcome }> {
  const { run } = context;
  const state =
    context.consent && context.lead?.id === run.leadId
      ? context.consent
      : run.leadId
        ? await leadConsentState(run.organizationId, run.leadId)
        : undefined;
  const decision = basisForContact(state, { kind: "Automated" }, new Date(context.now).toISOString());
  if (!("refused" in decision)) return decision;
  return {
    skipped: {
      kind: "skipped",
      reason: decision.refused,
      output: { complianceAction: "ConsentRequired", statusReason: decision.refused },
    },
  };
}

/** Who an automation's sends and calls are made by: the service, under the automation's name. */
export function automationActor(run: StoredRun) {
  return { ...systemActor(run.organizationId), displayName: `Automation ${run.automationName}` };
}
