import * as v from "valibot";
import { defineSkill, quotedIn, ulidInText } from "#core/agent/skills/skill";
import * as Messages from "#core/messaging/messages";

/**
 * Texts a lead through `Messages.send`, the pipeline behind `POST /messages`:
 * the lead must exist and have a phone, the wallet must be able to pay, and
 * the outbound consumer then applies opt-out, quiet hours and sender choice.
 * The task completes when the message is accepted; delivery is asynchronous.
 */
export const sendMessage = defineSkill({
  // The operation states the permission it checks; the skill asks for the same, not a copy of it.
  permissions: [Messages.send.permission],
  input: v.strictObject({
    leadId: v.pipe(v.string(), v.trim(), v.minLength(1, "leadId is required."), v.maxLength(64)),
    body: v.pipe(
      v.string(),
      v.trim(),
      v.minLength(1, "body is required."),
      v.maxLength(1600, "body is at most 1600 characters."),
    ),
  }),
  fromText(text) {
    const id = ulidInText.exec(text)?.[0];
    const afterId = id
      ? text
          .slice(text.indexOf(id) + id.length)
          .replace(/^\s*[:,-]\s*/, "")
          .trim()
      : undefined;
    const body = quotedIn(text) ?? (afterId || undefined);
    return { ...(id ? { leadId: id.toUpperCase() } : {}), ...(body ? { body } : {}) };
  },
  async run(actor, input) {
    const message = await Messages.send(actor, { leadId: input.leadId, body: input.body, overrideQuietHours: false });
    return {
      text: `Accepted a ${message.segments}-segment text to ${message.toPhoneNumber} (message ${message.id}, status ${message.status}). Delivery is asynchronous: quiet hours, opt-outs and billing are checked before it leaves; follow it on the lead's timeline.`,
      data: { message },
    };
  },
});
