import type { Actor } from "#core/auth/actor";
import { getItem, getItems, table } from "#core/db/items";
import { organizationProfile } from "#core/organizations/profile";
import { entities, keys } from "#core/db/keys";
import type { TransactItem } from "#core/db/transact";
import { ValidationError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";
import { newId, nowIso } from "#core/shared/ids";
import { Users } from "#core/users/index";
import type { RoutingAgent, RoutingConditions, RoutingRule, RoutingSettings, RoutingSettingsRequest } from "#core/routing/schemas";

export * from "#core/routing/schemas";

const DEFAULTS: RoutingSettings = { agentsSeeAllLeads: true, agentsMayClaim: false, rules: [], agents: [], modifiedAt: null };

/** Where routing sent a lead: a user of a rule's pool (with the counter move that must commit with it), or nobody. */
export type RoutingPick =
  | { kind: "assign"; ruleId: string; userId: string; writes: TransactItem[] }
  | { kind: "unassigned"; reason: "NoRuleMatched" | "NoEligibleUser"; ruleId: string | null };

/**
 * Routing rules and lead-visibility settings of an organization (docs/routing.md). This aggregate decides who a
 * lead goes to; core/leads writes the assignment, in one transaction with the round-robin counter move this
 * returns, so a counter position is spent exactly when a lead is assigned.
 */
export const Routing = {
  async settings(organizationId: string): Promise<RoutingSettings> {
    // Read as stored (not warm-cached): a rule change applies to the next lead, and visibility to the next request.
    return toSettings(await getItem(keys.routingSettings(organizationId), { consistent: true }));
  },

  read: (actor: Actor) => Routing.settings(actor.organizationId),

  /** `PUT /routing/settings`: every pool member must be a user of the organization. */
  async replace(actor: Actor, input: RoutingSettingsRequest): Promise<RoutingSettings> {
    const errors = [];
    for (const [index, rule] of input.rules.entries()) {
      for (const [member, userId] of rule.pool.entries()) {
        if (!(await Users.standing(actor.organizationId, userId))) errors.push({ pointer: `/rules/${index}/pool/${member}`, detail: `No user ${userId} in this organization.` });
      }
    }
    for (const [index, agent] of input.agents.entries()) {
      if (!(await Users.standing(actor.organizationId, agent.userId))) errors.push({ pointer: `/agents/${index}/userId`, detail: `No user ${agent.userId} in this organization.` });
    }
    if (errors.length) throw new ValidationError("The routing settings name an unknown user.", errors);
    const ids = new Set<string>();
    const rules: RoutingRule[] = input.rules.map((rule, index) => {
      const id = rule.id ?? newId();
      if (ids.has(id)) throw new ValidationError("Two routing rules have the same id.", [{ pointer: `/rules/${index}/id`, detail: `Rule id ${id} is used twice.` }]);
      ids.add(id);
      const weighted = rule.strategy === "weighted" && rule.weights ? { weights: rule.weights } : {};
      return { id, name: rule.name, conditions: rule.conditions, pool: [...new Set(rule.pool)], strategy: rule.strategy, ...weighted };
    });
    const item = {
      ...keys.routingSettings(actor.organizationId),
      entity: entities.routingSettings,
      agentsSeeAllLeads: input.agentsSeeAllLeads,
      agentsMayClaim: input.agentsMayClaim,
      rules,
      agents: input.agents,
      modifiedAt: nowIso(),
    };
    await table.put({ Item: item });
    return toSettings(item);
  },

  /**
   * Who the lead goes to: the first rule whose conditions it matches, then the rule's pool members who are active
   * users, licensed for the lead's state and under their daily cap, in round-robin order from the rule's counter
   * (read consistently). The writes it answers must commit with the lead's assignment: the counter moves on only
   * if nobody moved it meanwhile, the user's day count only while under the cap; a caller whose transaction lost
   * on either asks again. Undefined when the organization has no rules.
   */
  async pick(organizationId: string, lead: Lead, now = new Date()): Promise<RoutingPick | undefined> {
    const settings = await Routing.settings(organizationId);
    if (!settings.rules.length) return undefined;
    const rule = settings.rules.find((candidate) => matches(candidate.conditions, lead));
    if (!rule) return { kind: "unassigned", reason: "NoRuleMatched", ruleId: null };
    const day = await dayOf(organizationId, now);
    const eligible = await eligibleMembers(organizationId, rule.pool, settings.agents, lead, day);
    if (!eligible.length) return { kind: "unassigned", reason: "NoEligibleUser", ruleId: rule.id };
    const key = keys.routingCounter(organizationId, rule.id);
    const counter = await getItem(key, { consistent: true });
    const seq = Number(counter?.seq ?? 0);
    const turns = rule.strategy === "weighted" ? eligible.flatMap((member) => Array<typeof member>(rule.weights?.[member.userId] ?? 1).fill(member)) : eligible;
    const chosen = turns[seq % turns.length]!;
    const counterWrite: TransactItem = {
      Update: {
        Key: key,
        UpdateExpression: "SET seq = :next, entity = :entity, organizationId = :organizationId, ruleId = :ruleId",
        ConditionExpression: counter ? "seq = :seq" : "attribute_not_exists(pk)",
        ExpressionAttributeValues: {
          ":next": seq + 1,
          ":entity": entities.routingCounter,
          ":organizationId": organizationId,
          ":ruleId": rule.id,
          ...(counter ? { ":seq": seq } : {}),
        },
      },
    };
    const writes = [counterWrite];
    if (chosen.dailyCap !== null) writes.push(dailyCountWrite(organizationId, day, chosen.userId, chosen.dailyCap, now));
    return { kind: "assign", ruleId: rule.id, userId: chosen.userId, writes };
  },
};

/** Pool members who may take this lead now: active, licensed for its state (when they hold a list), under their cap. */
async function eligibleMembers(organizationId: string, pool: string[], agents: RoutingAgent[], lead: Lead, day: string) {
  const settingsOf = new Map(agents.map((agent) => [agent.userId, agent]));
  const state = lead.contact.streetAddress?.state?.trim().toUpperCase();
  const standings = await Promise.all(pool.map((userId) => Users.standing(organizationId, userId)));
  const members = pool
    .map((userId, index) => ({ dailyCap: null, licensedStates: null, ...settingsOf.get(userId), userId, active: standings[index]?.active }))
    .filter((member) => member.active && (!member.licensedStates || (state !== undefined && member.licensedStates.includes(state))));
  const capped = members.filter((member) => member.dailyCap !== null);
  const counts = new Map(
    (await getItems(capped.map((member) => keys.routingDailyCount(organizationId, day, member.userId)), { consistent: true })).map((item) => [item.userId as string, Number(item.assigned ?? 0)]),
  );
  return members.filter((member) => member.dailyCap === null || (counts.get(member.userId) ?? 0) < member.dailyCap);
}

/** One more lead for the user today, refused at the cap, so concurrent routing never takes a user past it. */
function dailyCountWrite(organizationId: string, day: string, userId: string, cap: number, now: Date): TransactItem {
  return {
    Update: {
      Key: keys.routingDailyCount(organizationId, day, userId),
      UpdateExpression: "SET assigned = if_not_exists(assigned, :zero) + :one, entity = :entity, organizationId = :organizationId, userId = :userId, expiresAt = :expiresAt",
      ConditionExpression: "attribute_not_exists(assigned) OR assigned < :cap",
      ExpressionAttributeValues: {
        ":zero": 0,
        ":one": 1,
        ":cap": cap,
        ":entity": entities.routingDailyCount,
        ":organizationId": organizationId,
        ":userId": userId,
        ":expiresAt": Math.floor(now.getTime() / 1000) + 3 * 86_400,
      },
    },
  };
}

/** The organization's calendar day (its time zone), as YYYY-MM-DD: daily caps restart at its midnight. */
async function dayOf(organizationId: string, now: Date): Promise<string> {
  const timeZone = (await organizationProfile(organizationId))?.timeZone ?? "UTC";
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(now);
}

const same = (wanted: string[] | undefined, actual: string | null | undefined) =>
  !wanted || (actual != null && wanted.some((value) => value.toLowerCase() === actual.trim().toLowerCase()));

function matches(conditions: RoutingConditions, lead: Lead): boolean {
  return (
    same(conditions.sourceIds, lead.sourceId) &&
    same(conditions.states, lead.contact.streetAddress?.state) &&
    same(conditions.verticals, lead.metadata.vertical) &&
    same(conditions.products, lead.metadata.product)
  );
}

function toSettings(item: Record<string, unknown> | undefined): RoutingSettings {
  if (!item) return DEFAULTS;
  return {
    agentsSeeAllLeads: item.agentsSeeAllLeads !== false,
    agentsMayClaim: item.agentsMayClaim === true,
    rules: (item.rules as RoutingRule[] | undefined) ?? [],
    agents: (item.agents as RoutingAgent[] | undefined) ?? [],
    modifiedAt: (item.modifiedAt as string | undefined) ?? null,
  };
}
