import type { Actor } from "#core/auth/actor";
import { getItem, table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import type { TransactItem } from "#core/db/transact";
import { ValidationError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";
import { newId, nowIso } from "#core/shared/ids";
import { Users } from "#core/users/index";
import type { RoutingConditions, RoutingRule, RoutingSettings, RoutingSettingsRequest } from "#core/routing/schemas";

export * from "#core/routing/schemas";

const DEFAULTS: RoutingSettings = { agentsSeeAllLeads: true, agentsMayClaim: false, rules: [], modifiedAt: null };

/** Where routing sent a lead: a user of a rule's pool (with the counter move that must commit with it), or nobody. */
export type RoutingPick =
  | { kind: "assign"; ruleId: string; userId: string; counterWrite: TransactItem }
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
    if (errors.length) throw new ValidationError("A routing rule names an unknown user.", errors);
    const ids = new Set<string>();
    const rules: RoutingRule[] = input.rules.map((rule, index) => {
      const id = rule.id ?? newId();
      if (ids.has(id)) throw new ValidationError("Two routing rules have the same id.", [{ pointer: `/rules/${index}/id`, detail: `Rule id ${id} is used twice.` }]);
      ids.add(id);
      return { id, name: rule.name, conditions: rule.conditions, pool: [...new Set(rule.pool)], strategy: rule.strategy };
    });
    const item = {
      ...keys.routingSettings(actor.organizationId),
      entity: entities.routingSettings,
      agentsSeeAllLeads: input.agentsSeeAllLeads,
      agentsMayClaim: input.agentsMayClaim,
      rules,
      modifiedAt: nowIso(),
    };
    await table.put({ Item: item });
    return toSettings(item);
  },

  /**
   * Who the lead goes to: the first rule whose conditions it matches, then the rule's pool members who are active
   * users, in round-robin order from the rule's counter (read consistently; the caller's transaction moves it on
   * only if nobody moved it meanwhile, and asks again when it lost). Undefined when the organization has no rules.
   */
  async pick(organizationId: string, lead: Lead): Promise<RoutingPick | undefined> {
    const { rules } = await Routing.settings(organizationId);
    if (!rules.length) return undefined;
    const rule = rules.find((candidate) => matches(candidate.conditions, lead));
    if (!rule) return { kind: "unassigned", reason: "NoRuleMatched", ruleId: null };
    const standings = await Promise.all(rule.pool.map((userId) => Users.standing(organizationId, userId)));
    const eligible = rule.pool.filter((_, index) => standings[index]?.active);
    if (!eligible.length) return { kind: "unassigned", reason: "NoEligibleUser", ruleId: rule.id };
    const key = keys.routingCounter(organizationId, rule.id);
    const counter = await getItem(key, { consistent: true });
    const seq = Number(counter?.seq ?? 0);
    return {
      kind: "assign",
      ruleId: rule.id,
      userId: eligible[seq % eligible.length]!,
      counterWrite: {
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
      },
    };
  },
};

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
    modifiedAt: (item.modifiedAt as string | undefined) ?? null,
  };
}
