import type { AgentSkillId } from "#core/agent/card";
import { automationHealth } from "#core/agent/skills/automation-health";
import type { Skill } from "#core/agent/skills/skill";
import { summarizePerformance } from "#core/agent/skills/summarize-performance";
import { findLeads } from "#core/agent/skills/find-leads";
import { myLeads } from "#core/agent/skills/my-leads";
import { leadTimeline } from "#core/agent/skills/lead-timeline";
import { sendMessage } from "#core/agent/skills/send-message";

export type { Skill, SkillResult } from "#core/agent/skills/skill";

/** Every skill on the agent card, by id: the Record type makes a missing or extra skill a type error. */
export const skills: Record<AgentSkillId, Skill> = {
  "summarize-performance": summarizePerformance as Skill,
  "find-leads": findLeads as Skill,
  "my-leads": myLeads as Skill,
  "lead-timeline": leadTimeline as Skill,
  "send-message": sendMessage as Skill,
  "automation-health": automationHealth as Skill,
};

export function isSkillId(id: unknown): id is AgentSkillId {
  return typeof id === "string" && Object.hasOwn(skills, id);
}
