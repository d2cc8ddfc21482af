import { encodeTime } from "ulid";
import { contactCap, stateContactRule } from "#core/consent/contact-rules";
import { frequencyCaps } from "#core/consent/settings";
import { queryPages } from "#core/db/query";
import { keys } from "#core/db/keys";
import type { Message } from "#core/messaging/model";
import { checkQuietHours, type QuietHoursDecision, type QuietHoursWindow } from "#core/messaging/quiet-hours";

/** The statuses of a text that went (or is going) to the carrier: what a frequency cap counts. */
const ATTEMPTED = new Set(["Sending", "Sent", "Delivered", "Undelivered", "Unknown"]);

/**
 * The organization's quiet hours and the recipient's state window (core/consent/contact-rules.ts) together: a send
 * goes when both allow it, else at the first instant both do. A deferral by the state's window names the rule.
 */
export function checkContactWindow(input: { at: Date; timeZone: string; window: QuietHoursWindow; state: string | null | undefined }): QuietHoursDecision & { complianceAction?: string } {
  const rule = stateContactRule(input.state);
  const windows = rule ? [rule.window, input.window] : [input.window];
  const refusalAt = (at: number) => windows.map((window) => checkQuietHours({ at: new Date(at), timeZone: input.timeZone, window })).find((decision) => !decision.allowed);
  const first = refusalAt(input.at.getTime());
  if (!first || first.allowed) return checkQuietHours({ at: input.at, timeZone: input.timeZone, window: input.window });
  // Each window's next start may fall outside the other: move on until both hold (three passes settle any two daily windows).
  let at = Date.parse(first.nextAllowedAt);
  for (let pass = 0; pass < 3; pass++) {
    const next = refusalAt(at);
    if (!next || next.allowed) break;
    at = Date.parse(next.nextAllowedAt);
  }
  const byState = rule !== undefined && !checkQuietHours({ at: input.at, timeZone: input.timeZone, window: rule.window }).allowed;
  if (!byState) return { ...first, nextAllowedAt: new Date(at).toISOString() };
  return {
    ...first,
    nextAllowedAt: new Date(at).toISOString(),
    scheduledReason: `${rule.name} contact window (${rule.source}): ${first.localTime} in ${input.timeZone} is outside ${rule.window.start}-${rule.window.end}; scheduled for the next allowed time.`,
    complianceAction: `StateWindow:${rule.state}`,
  };
}

/**
 * The cap a text would break: the organization's texts per recipient per day, or the recipient's state's
 * (Florida, Oklahoma, Maryland: 3 in 24 hours), counting texts already handed to the carrier in the last 24 hours.
 */
export async function frequencyCapRefusal(organizationId: string, message: Message, state: string | null | undefined): Promise<{ complianceAction: string; statusReason: string } | undefined> {
  const cap = contactCap((await frequencyCaps(organizationId)).smsPerDay, stateContactRule(state));
  if (!cap) return undefined;
  const sent = await textsSince(organizationId, message.conversationId, Date.now() - 24 * 3_600_000);
  if (sent < cap.max) return undefined;
  return { complianceAction: "FrequencyCap", statusReason: `${sent} texts to this recipient in the last 24 hours: ${cap.source} allows ${cap.max}.` };
}

/** Outbound texts of the conversation attempted since `sinceMs` (message ids are ULIDs of their time: a key range). */
async function textsSince(organizationId: string, conversationId: string, sinceMs: number): Promise<number> {
  const { gsi1pk, gsi1sk } = keys.messagesByConversation(organizationId, conversationId);
  let count = 0;
  for await (const page of queryPages({
    index: "messagesByConversation",
    KeyConditionExpression: "gsi1pk = :pk AND gsi1sk >= :from",
    ExpressionAttributeValues: { ":pk": gsi1pk, ":from": `${gsi1sk}${encodeTime(sinceMs, 10)}` },
    where: (item) => item.direction === "Outbound" && !item.purpose && ATTEMPTED.has(String(item.status)),
  })) {
    count += page.length;
  }
  return count;
}
