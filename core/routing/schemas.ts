import * as v from "valibot";
import { timestamp } from "#core/shared/ids";
import { compare, decimalString, DECIMAL_PATTERN } from "#core/shared/money";
import { maxChars } from "#core/shared/validation";

/**
 * roundRobin: each eligible member in turn; weighted: in turn too, a member of weight w taking w turns per cycle;
 * leastRecentlyAssigned: the eligible member whom routing gave a lead longest ago (never: first).
 */
export const routingStrategies = ["roundRobin", "weighted", "leastRecentlyAssigned", "firstToClaim"] as const;

const weights = v.pipe(
  v.record(
    v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
  ),
  v.description("For `weighted`: turns per cycle by user id (1-100); a pool member not named here has weight 1."),
);

const text = v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(100));
const values = <T extends v.GenericSchema<string, string>>(schema: T) =>
  v.optional(v.pipe(v.array(schema), v.minLength(1), v.maxLength(100)));
const stateCode = v.pipe(
  v.string(),
  v.trim(),
  v.toUpperCase(),
  v.regex(/^[A-Z]{2}$/, "Must be a two-letter state code, e.g. FL."),
);

const priceMessage = "Must be a decimal number such as 12.50.";
/** A price bound as a lead's price is written (a decimal string); a JSON number is taken as written. */
const priceBound = v.optional(
  v.union(
    [
      v.pipe(decimalString, v.maxLength(32)),
      v.pipe(v.number(), v.transform(String), v.regex(DECIMAL_PATTERN), v.maxLength(32)),
    ],
    priceMessage,
  ),
);

const PriceConditionSchema = v.pipe(
  v.strictObject({ min: priceBound, max: priceBound }),
  v.check((bounds) => bounds.min !== undefined || bounds.max !== undefined, "Give min, max or both."),
  v.forward(
    v.partialCheck(
      [["min"], ["max"]],
      ({ min, max }) => min === undefined || max === undefined || compare(min, max) <= 0,
      "max must not be below min.",
    ),
    ["max"],
  ),
  v.description(
    "The lead's metadata.price is at least `min` and at most `max` (either may be left out; both inclusive, compared exactly). A lead without a price does not match.",
  ),
);

/**
 * What a lead must match for a rule to take it: every condition given must hold (an absent one matches anything);
 * within one condition, any of its values. Text compares case-insensitively.
 */
export const RoutingConditionsSchema = v.strictObject({
  sourceIds: v.pipe(values(text), v.description("The lead's sourceId is one of these.")),
  states: v.pipe(
    values(stateCode),
    v.description(
      "The lead's state is one of these: the state of its street address, else the state of its phone's US area code.",
    ),
  ),
  verticals: v.pipe(values(text), v.description("The lead's metadata.vertical is one of these.")),
  products: v.pipe(values(text), v.description("The lead's metadata.product is one of these.")),
  price: v.optional(PriceConditionSchema),
  utmSources: v.pipe(values(text), v.description("The lead's metadata.utmSource is one of these.")),
  utmMediums: v.pipe(values(text), v.description("The lead's metadata.utmMedium is one of these.")),
  utmCampaigns: v.pipe(values(text), v.description("The lead's metadata.utmCampaign is one of these.")),
});
export type RoutingConditions = v.InferOutput<typeof RoutingConditionsSchema>;

const ruleId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/, "Letters, digits, - and _ only (at most 64)."));

export const RoutingRuleInputSchema = v.strictObject({
  id: v.pipe(
    v.optional(ruleId),
    v.description(
      "Keep the id of an existing rule to keep its round-robin position; a rule without one gets a new id.",
    ),
  ),
  name: v.optional(v.nullable(text), null),
  conditions: v.optional(RoutingConditionsSchema, {}),
  pool: v.pipe(
    v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
    v.minLength(1),
    v.maxLength(100),
    v.description("User ids of the organization who take this rule's leads."),
  ),
  strategy: v.optional(v.picklist(routingStrategies), "roundRobin"),
  weights: v.optional(weights),
});

/**
 * What happens to a lead nobody could take (no rule matched, or nobody in the rule's pool may take it now):
 * `unassigned` leaves it unassigned with needsAttention; `owner` assigns it to an owner of the organization.
 */
export const routingFallbacks = ["unassigned", "owner"] as const;

const cap = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000));

/** How one user takes routed leads; a user without an entry has no cap and no licence restriction. */
export const RoutingAgentSchema = v.strictObject({
  userId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  dailyCap: v.pipe(
    v.optional(v.nullable(cap), null),
    v.description("At most this many routed leads per day (the organization's time zone); null: no cap."),
  ),
  hourlyCap: v.pipe(
    v.optional(v.nullable(cap), null),
    v.description("At most this many routed leads per clock hour (the organization's time zone); null: no cap."),
  ),
  openCap: v.pipe(
    v.optional(v.nullable(cap), null),
    v.description(
      "At most this many open routed leads at once: a lead routed to the user is open until anyone's first outbound message or answered call to it, or until it is reassigned or unassigned; null: no cap.",
    ),
  ),
  licensedStates: v.pipe(
    v.optional(v.nullable(v.pipe(v.array(stateCode), v.maxLength(60))), null),
    v.description(
      "Only leads whose street-address state is one of these (a lead without a state is not routed to this user); null: any lead.",
    ),
  ),
});
export type RoutingAgent = v.InferOutput<typeof RoutingAgentSchema>;

/** Body of `PUT /routing/settings`: replaces the rules (first match wins, in this order) and the visibility settings. */
export const RoutingSettingsRequestSchema = v.strictObject({
  agentsSeeAllLeads: v.pipe(
    v.optional(v.boolean(), true),
    v.description("False: an agent reads and lists only the leads assigned to them."),
  ),
  agentsMayClaim: v.pipe(
    v.optional(v.boolean(), false),
    v.description("True: an agent may assign an unassigned lead to themselves."),
  ),
  rules: v.pipe(v.optional(v.array(RoutingRuleInputSchema), []), v.maxLength(50)),
  agents: v.pipe(v.optional(v.array(RoutingAgentSchema), []), v.maxLength(500)),
  fallback: v.pipe(
    v.optional(v.picklist(routingFallbacks), "unassigned"),
    v.description(
      "A lead no rule matched, or that nobody in its rule's pool may take now: `unassigned` leaves it unassigned with needsAttention; `owner` assigns it to the active owner, not away, who joined the organization first (none: unassigned with needsAttention). Needs rules: an organization without rules routes nothing.",
    ),
  ),
  version: v.pipe(
    v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    v.description(
      "The version these settings were read at: when given, the settings are replaced only if they are still at it (else 409, so one admin's save never silently undoes another's). Omitted: replaced whatever the version.",
    ),
  ),
});
export type RoutingSettingsRequest = v.InferOutput<typeof RoutingSettingsRequestSchema>;

export const RoutingRuleSchema = v.object({
  id: v.string(),
  name: v.nullable(v.string()),
  conditions: v.object({
    sourceIds: v.optional(v.array(v.string())),
    states: v.optional(v.array(v.string())),
    verticals: v.optional(v.array(v.string())),
    products: v.optional(v.array(v.string())),
    price: v.optional(v.object({ min: v.optional(v.string()), max: v.optional(v.string()) })),
    utmSources: v.optional(v.array(v.string())),
    utmMediums: v.optional(v.array(v.string())),
    utmCampaigns: v.optional(v.array(v.string())),
  }),
  pool: v.array(v.string()),
  strategy: v.picklist(routingStrategies),
  weights: v.optional(v.record(v.string(), v.number())),
});
export type RoutingRule = v.InferOutput<typeof RoutingRuleSchema>;

export const RoutingSettingsSchema = v.object({
  agentsSeeAllLeads: v.boolean(),
  agentsMayClaim: v.boolean(),
  rules: v.array(RoutingRuleSchema),
  fallback: v.picklist(routingFallbacks),
  agents: v.array(
    v.object({
      userId: v.string(),
      dailyCap: v.nullable(v.number()),
      hourlyCap: v.nullable(v.number()),
      openCap: v.nullable(v.number()),
      licensedStates: v.nullable(v.array(v.string())),
    }),
  ),
  /** 0 until first saved; each save adds one. */
  version: v.pipe(v.number(), v.integer(), v.description("0 until the settings are first saved; each save adds one.")),
  modifiedAt: v.nullable(timestamp),
});
export type RoutingSettings = v.InferOutput<typeof RoutingSettingsSchema>;

/** Body of `PUT /routing/agents/{userId}/away`: an away user is skipped by routing until they come back. */
export const RoutingAwaySchema = v.strictObject({
  away: v.pipe(v.boolean(), v.description("True: routing gives this user no lead.")),
});
export type RoutingAway = v.InferOutput<typeof RoutingAwaySchema>;

export const RoutingAvailabilitySchema = v.object({
  userId: v.string(),
  away: v.boolean(),
  modifiedAt: v.nullable(timestamp),
});
export type RoutingAvailability = v.InferOutput<typeof RoutingAvailabilitySchema>;
