import type { AgentSkillId } from "#core/agent/card";
import type { Skill } from "#core/agent/skills/skill";

export type { Skill, SkillResult } from "#core/agent/skills/skill";

/**
 * Every skill on the agent card, by id, as a loader: a skill's module brings its aggregate (analytics, leads,
 * events, messaging, automations), and every function is bundled with splitting (stacks/functions.ts), so
 * each is a chunk of its own that the first request naming the skill loads, instead of every cold start loading all
 * six. The Record type makes a missing or extra skill a type error.
 */
const skillLoaders: Record<AgentSkillId, () => Promise<Skill>> = {
  "summarize-performance": async () =>
    (await import("#core/agent/skills/summarize-performance")).summarizePerformance as Skill,
  "find-leads": async () => (await import("#core/agent/skills/find-leads")).findLeads as Skill,
  "my-leads": async () => (await import("#core/agent/skills/my-leads")).myLeads as Skill,
  "lead-timeline": async () => (await import("#core/agent/skills/lead-timeline")).leadTimeline as Skill,
  "send-message": async () => (await import("#core/agent/skills/send-message")).sendMessage as Skill,
  "automation-health": async () => (await import("#core/agent/skills/automation-health")).automationHealth as Skill,
};

/** The skill's implementation (the module system keeps it once loaded). */
export function loadSkill(id: AgentSkillId): Promise<Skill> {
  return skillLoaders[id]();
}

export function isSkillId(id: unknown): id is AgentSkillId {
  return typeof id === "string" && Object.hasOwn(skillLoaders, id);
}
