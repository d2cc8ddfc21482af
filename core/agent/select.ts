import type { Message } from "@a2a-js/sdk";
import type { AgentSkillId } from "#core/agent/card";
import { isSkillId, loadSkill } from "#core/agent/skills/index";
import { ulidInText } from "#core/agent/skills/skill";

/** Which skill a message asks for, with its (not yet validated) input. */
export type Selection =
  | { kind: "skill"; skillId: AgentSkillId; input: unknown; via: "data" | "metadata" | "text" }
  | { kind: "unknown"; requested?: string; text: string };

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Plain-text routing, tried in order; the first match wins. */
const keywordRoutes: { skillId: AgentSkillId; matches: (text: string) => boolean }[] = [
  {
    skillId: "lead-timeline",
    matches: (t) => /\b(timeline|history|events?|activity)\b/i.test(t) && ulidInText.test(t),
  },
  { skillId: "send-message", matches: (t) => /\b(text|sms|send|message|reply|write)\b/i.test(t) && ulidInText.test(t) },
  { skillId: "automation-health", matches: (t) => /\bautomations?\b|\bworkflows?\b/i.test(t) },
  {
    skillId: "summarize-performance",
    matches: (t) =>
      /\b(summar\w*|performance|analytics|stats|metrics|response times?|speed to lead|how (fast|quick\w*))\b/i.test(t),
  },
  { skillId: "my-leads", matches: (t) => /\b(my leads|leads? (assigned|given) to me|assigned to me)\b/i.test(t) },
  { skillId: "find-leads", matches: (t) => /\bleads?\b/i.test(t) },
];

/**
 * Picks the skill: a data part `{ skill, input }` first (agents), then
 * `metadata.skill` on the message or the request (input from `metadata.input`
 * or a data part), then keywords in the text parts (people). Reading input from text loads the skill chosen.
 */
export async function selectSkill(message: Message, requestMetadata: Json | undefined): Promise<Selection> {
  const dataParts = message.parts.flatMap((part) =>
    part.content?.$case === "data" && isObject(part.content.value) ? [part.content.value] : [],
  );
  const text = message.parts
    .flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : []))
    .join("\n")
    .trim();

  const structured = dataParts.find((data) => "skill" in data);
  if (structured) return chosen(structured.skill, structured.input ?? {}, "data", text);

  const metadata = [message.metadata, requestMetadata].find((candidate) => isObject(candidate) && "skill" in candidate);
  if (metadata) return chosen(metadata.skill, metadata.input ?? dataParts[0] ?? {}, "metadata", text);

  const route = keywordRoutes.find((candidate) => candidate.matches(text));
  if (route) {
    const input = (await loadSkill(route.skillId)).fromText(text);
    return { kind: "skill", skillId: route.skillId, input, via: "text" };
  }
  return { kind: "unknown", text };
}

function chosen(skill: unknown, input: unknown, via: "data" | "metadata", text: string): Selection {
  if (isSkillId(skill)) return { kind: "skill", skillId: skill, input, via };
  return { kind: "unknown", requested: typeof skill === "string" ? skill : JSON.stringify(skill), text };
}
