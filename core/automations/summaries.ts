import { AutomationEntity } from "#core/db/entities/automations";
import { queryAll } from "#core/db/query";

/** What the analytics report shows of each automation: its name and how its last run went. */
export interface AutomationSummary {
  id: string;
  name: string;
  enabled: boolean;
  lastRunStatus: string | null;
  lastRunAt: string | null;
  lastRunError: string | null;
}

/**
 * Every automation of the organization, summarised (its creation index, then the items: each is in a partition of its
 * own); a small module, so the analytics report loads no automation engine.
 */
export async function automationSummaries(organizationId: string): Promise<AutomationSummary[]> {
  const items = await queryAll(AutomationEntity.query("byCreation", { organizationId }));
  return items.map((item) => ({
    id: String(item.id),
    name: String(item.name),
    enabled: item.enabled === true,
    lastRunStatus: (item.lastRunStatus as string | null) ?? null,
    lastRunAt: (item.lastRunAt as string | null) ?? null,
    lastRunError: (item.lastRunError as string | null) ?? null,
  }));
}
