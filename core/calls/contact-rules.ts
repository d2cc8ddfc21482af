import { contactCap, passedCheck, stateContactRule } from "#core/consent/contact-rules";
import { frequencyCaps } from "#core/consent/settings";
import { claimContactAttempt } from "#core/consent/contact-attempts";
import { readCall } from "#core/calls/store";
import * as Contacts from "#core/messaging/contacts";
import { checkContactWindow } from "#core/messaging/contact-rules";
import { recipientTimeZone } from "#core/shared/phone";

/** A window that is always open: only the state's applies to calls. */
const ALWAYS = { start: "00:00", end: "00:00" };

/**
 * Whether a call may be placed now under the contact rules (core/consent/contact-rules.ts): a `refusal` outside the
 * recipient's state window (a call cannot wait like a text, so it is refused; the organization's quiet hours stay a
 * texting setting) or over the calls-per-24-hours cap of the organization or the state; else the rules it passed
 * (`checks`, the call's `complianceChecks`).
 */
export async function callRules(input: {
  organizationId: string;
  callId: string;
  to: string;
  leadId: string | undefined;
  organizationTimeZone: string;
}): Promise<{ refusal: string } | { checks: string[] }> {
  const contact = input.leadId ? await Contacts.ofLead(input.organizationId, input.leadId) : undefined;
  const rule = stateContactRule(contact?.state);
  if (rule) {
    const { timeZone } = recipientTimeZone({
      phone: input.to,
      state: contact?.state,
      organizationTimeZone: input.organizationTimeZone,
    });
    const window = checkContactWindow({ at: new Date(), timeZone, window: ALWAYS, state: rule.state });
    if (!window.allowed)
      return {
        refusal: `${window.scheduledReason.replace(/; scheduled for .*$/, "")}: call again from ${window.nextAllowedAt}.`,
      };
  }
  const windowChecks = rule ? [passedCheck.stateWindow(rule)] : [];
  const organizationCap = (await frequencyCaps(input.organizationId)).callsPerDay;
  const cap = contactCap(organizationCap, rule);
  if (!cap) return { checks: windowChecks };
  // The call claims its place under the cap (calls placed at the same instant cannot all pass); a call that was never
  // stored (refused after this check) gives it back a minute later.
  const claim = await claimContactAttempt(input.organizationId, {
    channel: "Call",
    to: input.to,
    attemptId: input.callId,
    cap: cap.max,
    stillCounts: async (ids) => {
      const calls = await Promise.all(ids.map((id) => readCall(input.organizationId, id)));
      return new Map(ids.map((id, index) => [id, calls[index] ? true : undefined]));
    },
  });
  return claim.claimed
    ? { checks: [...windowChecks, ...passedCheck.caps(organizationCap, rule)] }
    : { refusal: `${claim.count} calls to ${input.to} in the last 24 hours: ${cap.source} allows ${cap.max}.` };
}
