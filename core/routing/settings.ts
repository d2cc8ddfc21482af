import { getItem } from "#core/db/items";
import { keys } from "#core/db/keys";
import type { RoutingAgent, RoutingRule, RoutingSettings } from "#core/routing/schemas";

/**
 * An organization's routing settings as stored, apart from `Routing` (rules, picks, caps): what every read of a
 * lead, conversation, call or message asks (may an agent see all leads?), so those functions leave out the rule
 * matching, which parses phone numbers (libphonenumber-js).
 */

const DEFAULTS: RoutingSettings = {
  agentsSeeAllLeads: true,
  agentsMayClaim: false,
  rules: [],
  fallback: "unassigned",
  agents: [],
  version: 0,
  modifiedAt: null,
};

/** Read as stored: a visibility change applies to the next request (routing itself warm-reads them, see `pick`). */
export async function routingSettings(organizationId: string): Promise<RoutingSettings> {
  return toSettings(await getItem(keys.routingSettings(organizationId), { consistent: true }));
}

export function toSettings(item: Record<string, unknown> | undefined): RoutingSettings {
  if (!item) return DEFAULTS;
  return {
    agentsSeeAllLeads: item.agentsSeeAllLeads !== false,
    agentsMayClaim: item.agentsMayClaim === true,
    rules: (item.rules as RoutingRule[] | undefined) ?? [],
    fallback: item.fallback === "owner" ? "owner" : "unassigned",
    agents: ((item.agents as RoutingAgent[] | undefined) ?? []).map((agent) => ({
      ...agent,
      hourlyCap: agent.hourlyCap ?? null,
      openCap: agent.openCap ?? null,
    })),
    version: typeof item.version === "number" ? item.version : 0,
    modifiedAt: (item.modifiedAt as string | undefined) ?? null,
  };
}
