import type { ActionContext, ActionOutcome } from "#core/automations/runs/actions";
import { automatedContact, automationActor } from "#core/automations/runs/actions/common";
import { WalletRefusedError } from "#core/billing/schemas";
import { place } from "#core/calls/placement";

/** Places a call to the run's lead, after the same consent check as a send. */
export async function placeCall(
  context: ActionContext,
  settings: { fromPhoneNumberId?: string; connectTo?: string; timeoutSeconds: number },
): Promise<ActionOutcome> {
  const { run } = context;
  if (!run.leadId) return { kind: "failed", error: "The run has no lead to call." };
  const consent = await automatedContact(context);
  if ("skipped" in consent) return consent.skipped;
  const actor = automationActor(run);
  let call: Awaited<ReturnType<typeof place>>;
  try {
    // The step's effect id is the call id, so a redelivered or retried step finds the call instead of placing another.
    call = await place(
      actor,
      {
        leadId: run.leadId,
        ...(settings.fromPhoneNumberId ? { fromPhoneNumberId: settings.fromPhoneNumberId } : {}),
        // connectTo rings the business side first and bridges it to the lead; timeoutSeconds is how long the lead rings.
        ...(settings.connectTo ? { connectTo: settings.connectTo } : {}),
        ringSeconds: settings.timeoutSeconds,
        record: false,
        metadata: { automationId: run.automationId, runId: run.id },
      },
      { callId: context.effectId, consentBasis: consent.basis },
    );
  } catch (error) {
    if (error instanceof WalletRefusedError) {
      return {
        kind: "failed",
        status: "Blocked",
        error: error.message,
        output: { billingStatus: error.billingStatus },
      };
    }
    throw error;
  }
  return { kind: "succeeded", output: { callId: call.id, status: (call as { status?: string }).status ?? null } };
}
