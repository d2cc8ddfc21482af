import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import * as Automations from "#core/automations/automations";
import type { Automation } from "#core/automations/index";
import { defineSkill } from "#core/agent/skills/skill";

/** Automations read per request at most; beyond that the answer says it is truncated. */
const maxAutomations = 1000;

type AutomationHealth = "Healthy" | "Failing" | "NeverRun" | "Disabled";

/** Reads every automation of the organization (paged), up to `maxAutomations`. */
async function allAutomations(actor: Actor): Promise<{ automations: Automation[]; truncated: boolean }> {
  const automations: Automation[] = [];
  let continuationToken: string | null = null;
  do {
    const page = await Automations.list(actor, { pageSize: 200, continuationToken });
    automations.push(...page.items);
    continuationToken = page.continuationToken;
  } while (continuationToken && automations.length < maxAutomations);
  return { automations: automations.slice(0, maxAutomations), truncated: continuationToken !== null };
}

function healthOf(automation: Automation): AutomationHealth {
  if (!automation.enabled) return "Disabled";
  if (automation.lastRunStatus === "Failed") return "Failing";
  if (automation.lastRunStatus === null) return "NeverRun";
  return "Healthy";
}

/** Counts, enabled and failing automations. */
function automationCounts(automations: Automation[]) {
  return {
    automationCount: automations.length,
    enabledCount: automations.filter((a) => a.enabled).length,
    failingCount: automations.filter((a) => healthOf(a) === "Failing").length,
  };
}

export const automationHealth = defineSkill({
  permissions: ["automations:read"],
  input: v.strictObject({ onlyFailing: v.optional(v.boolean(), false) }),
  fromText: (text) => ({ onlyFailing: /\b(fail|failing|failed|broken|error|errors)\b/i.test(text) }),
  async run(actor, input) {
    const { automations, truncated } = await allAutomations(actor);
    const counts = automationCounts(automations);
    const listed = automations
      .map((automation) => ({
        id: automation.id,
        name: automation.name,
        enabled: automation.enabled,
        health: healthOf(automation),
        lastRunAt: automation.lastRunAt,
        lastRunStatus: automation.lastRunStatus,
      }))
      .filter((automation) => !input.onlyFailing || automation.health === "Failing");
    const failing = listed.filter((automation) => automation.health === "Failing");
    const text =
      counts.automationCount === 0
        ? "This organization has no automations yet."
        : [
            `${counts.automationCount} automation${counts.automationCount === 1 ? "" : "s"}, ${counts.enabledCount} enabled.`,
            failing.length === 0
              ? "None is failing."
              : `Failing: ${failing.map((a) => `${a.name} (last run ${a.lastRunAt ?? "unknown"})`).join("; ")}.`,
            truncated ? `Only the first ${maxAutomations} are listed.` : "",
          ]
            .filter(Boolean)
            .join(" ");
    return { text, data: { ...counts, truncated, automations: listed } };
  },
});
