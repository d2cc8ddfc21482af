/**
 * The actions that change the lead or its number: UpdateLead, AssignLead (routing) and AddToSuppression. One module,
 * so the split automation-runs consumer loads the three together with the first of them an instance runs.
 */
import type { Perform } from "#core/automations/runs/actions";
import { automationActor } from "#core/automations/runs/actions/common";
import { assignLeadFields } from "#core/leads/assign";
import { assignByAutomation } from "#core/leads/assignment";
import * as Suppressions from "#core/suppressions/index";

/** Writes fixed values into the lead (core/leads owns how: plain fields one by one, nested objects merged). */
export const updateLead: Perform<"UpdateLead"> = async (context, { fields }) => {
  const { lead, run } = context;
  if (!lead) return { kind: "failed", error: "The run has no lead to update." };
  const updated = await assignLeadFields(run.organizationId, lead, fields);
  return { kind: "succeeded", output: { updated }, input: { fields } };
};

/** Assigns the run's lead to the user named, or by the routing rules; the output says to whom and how it went. */
export const assignLead: Perform<"AssignLead"> = async (context, { userId }) => {
  const { run } = context;
  if (!run.leadId) return { kind: "failed", error: "The run has no lead to assign." };
  const assigned = await assignByAutomation(automationActor(run), run.leadId, userId);
  return { kind: "succeeded", output: { ...assigned } };
};

/** Suppresses the lead's number: a manual suppression, noted with the automation's name unless a reason is given. */
export const addToSuppression: Perform<"AddToSuppression"> = async (context, { reason }) => {
  const phone = context.lead?.contact.phone?.number;
  if (!phone) return { kind: "failed", error: "The lead has no phone number to suppress." };
  const { created } = await Suppressions.add(context.run.organizationId, {
    phoneNumber: phone,
    reason: "Manual",
    note: reason ?? `Added by automation ${context.run.automationName}`,
    ...(context.run.leadId ? { leadId: context.run.leadId } : {}),
  });
  return { kind: "succeeded", output: { phoneNumber: phone, created } };
};
