import { contactCap, stateContactRule } from "#core/consent/contact-rules";
import { frequencyCaps } from "#core/consent/settings";
import { keys } from "#core/db/keys";
import { queryCount } from "#core/db/query";
import { Contacts } from "#core/messaging/contacts";
import { checkContactWindow } from "#core/messaging/contact-rules";
import { ulidFloor } from "#core/shared/ids";
import { recipientTimeZone } from "#core/shared/phone";

/** A window that is always open: only the state's applies to calls. */
const ALWAYS = { start: "00:00", end: "00:00" };

/**
 * Why a call may not be placed now under the contact rules (core/consent/contact-rules.ts): outside the recipient's
 * state window (a call cannot wait like a text, so it is refused; the organization's quiet hours stay a texting
 * setting) or over the calls-per-24-hours cap of the organization or the state. Undefined when it may go.
 */
export async function callRuleRefusal(input: { organizationId: string; to: string; leadId: string | undefined; organizationTimeZone: string }): Promise<string | undefined> {
  const contact = input.leadId ? await Contacts.ofLead(input.organizationId, input.leadId) : undefined;
  const rule = stateContactRule(contact?.state);
  if (rule) {
    const { timeZone } = recipientTimeZone({ phone: input.to, state: contact?.state, organizationTimeZone: input.organizationTimeZone });
    const window = checkContactWindow({ at: new Date(), timeZone, window: ALWAYS, state: rule.state });
    if (!window.allowed) return `${window.scheduledReason.replace(/; scheduled for .*$/, "")}: call again from ${window.nextAllowedAt}.`;
  }
  const cap = contactCap((await frequencyCaps(input.organizationId)).callsPerDay, rule);
  if (!cap) return undefined;
  const { pk, skPrefix } = keys.callByPhonePrefix(input.organizationId, input.to);
  const { count } = await queryCount(
    {
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
      FilterExpression: "direction = :outbound",
      ExpressionAttributeValues: { ":pk": pk, ":from": `${skPrefix}${ulidFloor(Date.now() - 24 * 3_600_000)}`, ":to": `${skPrefix}~`, ":outbound": "Outbound" },
    },
    1000,
  );
  return count >= cap.max ? `${count} calls to ${input.to} in the last 24 hours: ${cap.source} allows ${cap.max}.` : undefined;
}
