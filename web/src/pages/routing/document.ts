/**
 * The routing settings as the Routing page reads and changes them: one document (`GET` / `PUT /routing/settings`),
 * replaced whole on every save, and the words the page shows its parts in.
 */
import type { paths } from "../../api/schema";
import type { User } from "../conversations/team";

export type RoutingSettings = paths["/routing/settings"]["get"]["responses"]["200"]["content"]["application/json"];
export type RoutingDocument = NonNullable<
  paths["/routing/settings"]["put"]["requestBody"]
>["content"]["application/json"];
export type Rule = RoutingSettings["rules"][number];
export type RuleDraft = NonNullable<RoutingDocument["rules"]>[number];
export type AgentLimits = RoutingSettings["agents"][number];
export type Strategy = Rule["strategy"];
export type Fallback = RoutingSettings["fallback"];

/** What PUT takes back: the settings as last read, without their timestamp. */
export function documentOf(settings: RoutingSettings): RoutingDocument {
  const { modifiedAt: _modifiedAt, ...document } = settings;
  return document;
}

/** Typed against the API's union: a strategy it gains without words here fails the web type check. */
export const strategyLabels = {
  roundRobin: "Each in turn",
  weighted: "In turn, by weight",
  leastRecentlyAssigned: "Longest waiting first",
  firstToClaim: "First to claim",
} satisfies Record<Strategy, string>;
export const strategies = Object.keys(strategyLabels) as Strategy[];

export const fallbackLabels = {
  unassigned: "Leave it unassigned, flagged",
  owner: "Give it to the first owner",
} satisfies Record<Fallback, string>;
export const fallbacks = Object.keys(fallbackLabels) as Fallback[];

/** A rule's name as the page shows it: its name, else its id. */
export function ruleName(rule: Rule): string {
  return rule.name ?? rule.id;
}

/** `list` with the item at `from` moved to `to`. */
export function moved<T>(list: readonly T[], from: number, to: number): T[] {
  const next = [...list];
  const [item] = next.splice(from, 1);
  next.splice(to, 0, item!);
  return next;
}

/** A rule with no condition matches every lead: first match wins, so the rules under it never run. */
export function catchAllAbove(rules: readonly Rule[], index: number): Rule | undefined {
  return rules.slice(0, index).find((rule) => Object.keys(rule.conditions).length === 0);
}

const anyOf = (values: string[]) => values.join(" or ");

/** A rule's conditions in words, one part each ("State FL or GA"); none: every lead. */
export function conditionsInWords(conditions: Rule["conditions"], sourceNames: Record<string, string>): string[] {
  const parts: string[] = [];
  if (conditions.sourceIds) parts.push(`Source ${anyOf(conditions.sourceIds.map((id) => sourceNames[id] ?? id))}`);
  if (conditions.states) parts.push(`State ${anyOf(conditions.states)}`);
  if (conditions.verticals) parts.push(`Vertical ${anyOf(conditions.verticals)}`);
  if (conditions.products) parts.push(`Product ${anyOf(conditions.products)}`);
  const { min, max } = conditions.price ?? {};
  if (min !== undefined && max !== undefined) parts.push(`Price ${min} to ${max}`);
  else if (min !== undefined) parts.push(`Price at least ${min}`);
  else if (max !== undefined) parts.push(`Price at most ${max}`);
  if (conditions.utmSources) parts.push(`UTM source ${anyOf(conditions.utmSources)}`);
  if (conditions.utmMediums) parts.push(`UTM medium ${anyOf(conditions.utmMediums)}`);
  if (conditions.utmCampaigns) parts.push(`UTM campaign ${anyOf(conditions.utmCampaigns)}`);
  return parts.length > 0 ? parts : ["Every lead"];
}

/** A person's name by id; someone past the team's first page, or removed, shows as their id. */
export function personName(team: readonly User[], userId: string): string {
  const user = team.find((person) => person.id === userId);
  if (!user) return userId;
  return user.status === "Active" ? user.name : `${user.name} (${user.status.toLowerCase()})`;
}

/** How routing limits a person, in words: their licences and caps. */
export function limitsInWords(limits: AgentLimits | undefined): string {
  const licence = limits?.licensedStates ? `Licensed in ${limits.licensedStates.join(", ")}` : "Any state";
  const caps = [
    limits?.dailyCap != null && `${limits.dailyCap} a day`,
    limits?.hourlyCap != null && `${limits.hourlyCap} an hour`,
    limits?.openCap != null && `${limits.openCap} open at once`,
  ].filter(Boolean);
  return `${licence} · ${caps.length > 0 ? `at most ${caps.join(", ")}` : "no cap"}`;
}

/** When a person takes leads, from their profile: any time, or their working hours (in their time zone). */
export function hoursInWords(user: User): string {
  if (user.workingHours.length === 0) return "Any time";
  const hours = user.workingHours.map((span) => `${span.day} ${span.start}–${span.end}`).join(", ");
  return user.timeZone ? `${hours} (${user.timeZone})` : hours;
}

/**
 * The agents' list with one person's limits replaced: an entry that limits nothing is left out (a user without one
 * has no cap and no licence restriction), so clearing every field takes the person off the list.
 */
export function withLimits(
  agents: readonly AgentLimits[],
  userId: string,
  limits: Partial<AgentLimits>,
): RoutingDocument["agents"] {
  const entry = { userId, ...limits };
  const limitsSomething = Object.entries(limits).some(([key, value]) => key !== "userId" && value != null);
  const at = agents.findIndex((agent) => agent.userId === userId);
  if (at < 0) return limitsSomething ? [...agents, entry] : [...agents];
  return limitsSomething
    ? agents.map((agent, index) => (index === at ? entry : agent))
    : agents.filter((_, index) => index !== at);
}
