import { contactCap, passedCheck, stateContactRule } from "#core/consent/contact-rules";
import { frequencyCaps, type FrequencyCaps } from "#core/consent/settings";
import { claimContactAttempt } from "#core/consent/contact-attempts";
import { readMessage } from "#core/messaging/store";
import type { Message } from "#core/messaging/model";
import { checkQuietHours, type QuietHoursDecision, type QuietHoursWindow } from "#core/messaging/quiet-hours";

/** A text that ended here never reached the recipient: it gives its place under a cap back. */
const NOT_SENT = new Set(["Failed", "Blocked", "Canceled"]);

/**
 * The organization's quiet hours and the recipient's state window (core/consent/contact-rules.ts) together: a send
 * goes when both allow it, else at the first instant both do. A deferral by the state's window names the rule; a
 * send allowed names the windows it passed (`checks`).
 */
export function checkContactWindow(input: {
  at: Date;
  timeZone: string;
  window: QuietHoursWindow;
  state: string | null | undefined;
}): QuietHoursDecision & { complianceAction?: string; checks?: string[] } {
  const rule = stateContactRule(input.state);
  const windows = rule ? [rule.window, input.window] : [input.window];
  const refusalAt = (at: number) =>
    windows
      .map((window) => checkQuietHours({ at: new Date(at), timeZone: input.timeZone, window }))
      .find((decision) => !decision.allowed);
  const first = refusalAt(input.at.getTime());
  if (!first || first.allowed)
    return {
      ...checkQuietHours({ at: input.at, timeZone: input.timeZone, window: input.window }),
      checks: [passedCheck.quietHours, ...(rule ? [passedCheck.stateWindow(rule)] : [])],
    };
  // Each window's next start may fall outside the other: move on until both hold (three passes settle any two daily windows).
  let at = Date.parse(first.nextAllowedAt);
  for (let pass = 0; pass < 3; pass++) {
    const next = refusalAt(at);
    if (!next || next.allowed) break;
    at = Date.parse(next.nextAllowedAt);
  }
  const byState =
    rule !== undefined && !checkQuietHours({ at: input.at, timeZone: input.timeZone, window: rule.window }).allowed;
  if (!byState) return { ...first, nextAllowedAt: new Date(at).toISOString() };
  return {
    ...first,
    nextAllowedAt: new Date(at).toISOString(),
    scheduledReason: `${rule.name} contact window (${rule.source}): ${first.localTime} in ${input.timeZone} is outside ${rule.window.start}-${rule.window.end}; scheduled for the next allowed time.`,
    complianceAction: passedCheck.stateWindow(rule),
  };
}

/**
 * The cap a text would break: the organization's texts per recipient per day, or the recipient's state's (Florida,
 * Oklahoma, Maryland: 3 in 24 hours). The text claims its place under the cap (core/consent/contact-attempts.ts), so
 * texts dispatched at the same instant cannot all pass; a text that ends without being sent gives its place back.
 * Answers the refusal, or the caps the text passed (none when no cap applies).
 */
export async function frequencyCapRefusal(
  organizationId: string,
  message: Message,
  state: string | null | undefined,
  caps?: FrequencyCaps,
): Promise<{ refusal: { complianceAction: string; statusReason: string } } | { checks: string[] }> {
  const rule = stateContactRule(state);
  const organizationCap = (caps ?? (await frequencyCaps(organizationId))).smsPerDay;
  const cap = contactCap(organizationCap, rule);
  if (!cap) return { checks: [] };
  const claim = await claimContactAttempt(organizationId, {
    channel: "Sms",
    to: message.toPhoneNumber,
    attemptId: message.id,
    cap: cap.max,
    stillCounts: async (ids) => {
      const messages = await Promise.all(ids.map((id) => readMessage(organizationId, id)));
      return new Map(
        ids.map((id, index) => [id, messages[index] ? !NOT_SENT.has(messages[index]!.status) : undefined]),
      );
    },
  });
  if (claim.claimed) return { checks: passedCheck.caps(organizationCap, rule) };
  return {
    refusal: {
      complianceAction: "FrequencyCap",
      statusReason: `${claim.count} texts to this recipient in the last 24 hours: ${cap.source} allows ${cap.max}.`,
    },
  };
}
