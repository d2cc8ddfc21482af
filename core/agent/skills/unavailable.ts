import * as v from "valibot";
import { defineSkill, quotedIn, SkillNotAvailableError, ulidInText } from "#core/agent/skills/skill";

const leadId = v.pipe(v.string(), v.trim(), v.minLength(1, "leadId is required."), v.maxLength(64));
const pageSize = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(50)), 20);

/*
 * Skills whose domain modules (core/events listing, core/messaging's send
 * pipeline) are being built by other engineers. Their input contracts are final
 * and validated; `run` says plainly that the skill is not available yet.
 */

export const leadTimeline = defineSkill({
  permissions: ["leads:read", "events:read"],
  input: v.strictObject({ leadId, pageSize, continuationToken: v.optional(v.pipe(v.string(), v.maxLength(4096))) }),
  fromText: (text) => {
    const id = ulidInText.exec(text)?.[0];
    return id ? { leadId: id.toUpperCase() } : {};
  },
  async run() {
    throw new SkillNotAvailableError("Lead timelines are not available yet: the events module is still being built.");
  },
});

export const sendMessage = defineSkill({
  permissions: ["messages:send"],
  input: v.strictObject({
    leadId,
    body: v.pipe(v.string(), v.trim(), v.minLength(1, "body is required."), v.maxLength(1600, "body is at most 1600 characters.")),
  }),
  fromText(text) {
    const id = ulidInText.exec(text)?.[0];
    const afterId = id ? text.slice(text.indexOf(id) + id.length).replace(/^\s*[:,-]\s*/, "").trim() : undefined;
    const body = quotedIn(text) ?? (afterId || undefined);
    return { ...(id ? { leadId: id.toUpperCase() } : {}), ...(body ? { body } : {}) };
  },
  async run() {
    throw new SkillNotAvailableError("Sending messages is not available yet: the messaging pipeline is still being built.");
  },
});
