/**
 * How a run reads its graph (docs/automations.md "Execution"): condition groups are evaluated against the lead and
 * the clock, and among the surviving outgoing connections one is picked in proportion to its weight. Pure apart from
 * the HasReplied lookup, which the caller supplies.
 */
import type { Condition, ConditionGroup, Connection } from "#core/automations/definition";
import { isWithinWindow, minutesOfDay } from "#core/automations/definition/time";
import { weekdays } from "#core/automations/definition/values";
import type { Lead } from "#core/leads/index";
import { wallTimeAt } from "#core/messaging/quiet-hours";

export interface EvaluationContext {
  lead: Lead | undefined;
  now: number;
  timeZone: string;
  runStartedAt: string;
  /** Whether the lead sent an inbound message at or after `since`. */
  hasReplied: (since: string) => Promise<boolean>;
}

export interface ConditionResult {
  id: string;
  type: string;
  operator: string;
  result: boolean | null;
}

export interface GroupResult {
  passed: boolean;
  mode: string;
  conditions: ConditionResult[];
}

/** A group passes when all (or any) of its enabled conditions hold; a group with none enabled passes. */
export async function evaluateGroup(group: ConditionGroup, context: EvaluationContext): Promise<GroupResult> {
  const conditions: ConditionResult[] = [];
  for (const condition of group.conditions) {
    const result = condition.isEnabled ? await evaluateCondition(condition, context) : null;
    conditions.push({ id: condition.id, type: condition.type, operator: condition.operator, result });
  }
  const results = conditions.flatMap((entry) => (entry.result === null ? [] : [entry.result]));
  const passed = results.length === 0 || (group.mode === "any" ? results.some(Boolean) : results.every(Boolean));
  return { passed, mode: group.mode, conditions };
}

export async function evaluateCondition(condition: Condition, context: EvaluationContext): Promise<boolean> {
  switch (condition.type) {
    case "LeadField":
      return compareLeadField(condition, leadValue(context.lead, condition.settings.field));
    case "TimeOfDay": {
      const wall = wallTimeAt(context.now, context.timeZone);
      const inside = isWithinWindow(
        wall.hour * 60 + wall.minute,
        minutesOfDay(condition.settings.start)!,
        minutesOfDay(condition.settings.end)!,
      );
      return condition.operator === "Between" ? inside : !inside;
    }
    case "Weekday": {
      const today = weekdayAt(context.now, context.timeZone);
      const listed = (condition.settings.days as readonly string[]).includes(today);
      return condition.operator === "In" ? listed : !listed;
    }
    case "LeadAge": {
      if (!context.lead) return false;
      const ageSeconds = (context.now - Date.parse(context.lead.createdAt)) / 1000;
      return condition.operator === "GreaterThan"
        ? ageSeconds > condition.settings.seconds
        : ageSeconds < condition.settings.seconds;
    }
    case "HasReplied": {
      const since = condition.settings.since === "LeadCreated" ? context.lead?.createdAt : context.runStartedAt;
      const replied = context.lead && since ? await context.hasReplied(since) : false;
      return (replied === condition.settings.value) === (condition.operator === "Equals");
    }
    case "ConsentStatus": {
      const status = consentStatusOf(context.lead);
      if ("values" in condition.settings) {
        const listed = (condition.settings.values as readonly string[]).includes(status);
        return condition.operator === "In" ? listed : !listed;
      }
      return (status === condition.settings.value) === (condition.operator === "Equals");
    }
    case "Assignee": {
      const assignee = context.lead?.assignedUserId ?? null;
      if ("userId" in condition.settings)
        return (assignee === condition.settings.userId) === (condition.operator === "Equals");
      return (assignee !== null) === (condition.operator === "Exists");
    }
  }
}

/** The lead's consent as the ConsentStatus condition sees it: opted out wins, else the stored status, else Unknown. */
export function consentStatusOf(lead: Lead | undefined): string {
  if (!lead) return "Unknown";
  if (lead.metadata.smsOptedOut) return "OptedOut";
  return lead.metadata.smsConsentStatus ?? "Unknown";
}

function weekdayAt(instant: number, timeZone: string): string {
  const wall = wallTimeAt(instant, timeZone);
  const sundayFirst = new Date(Date.UTC(wall.year, wall.month - 1, wall.day)).getUTCDay();
  return weekdays[(sundayFirst + 6) % 7]!;
}

/** What a template reads beside the lead: the organization's profile, and the lead's assignee (none: unassigned). */
export interface TemplateValues {
  organizationName?: string;
  organizationPhone?: string | null;
  organizationWebsite?: string | null;
  assignedUser?: AssignedUserValues;
}

/** `{{assignedUser.*}}`: the assignee's profile name, its first word as `firstName`, and their profile phone. */
export type AssignedUserValues = { firstName: string; name: string; phone: string | null };

export function assignedUserValues(profile: { name: string; phone: string | null }): AssignedUserValues {
  const name = profile.name.trim();
  return { firstName: name.split(/\s+/)[0] ?? "", name, phone: profile.phone };
}

/**
 * The value at a field path (`contact.firstName`, `metadata.sourceMetadata.campaign`, `lead.id`,
 * `organization.name`, `assignedUser.firstName`); objects holding one value (`contact.phone`, `customer.gender`)
 * read as that value.
 */
export function leadValue(lead: Lead | undefined, path: string, template: TemplateValues = {}): unknown {
  if (path === "organization.name") return template.organizationName;
  if (path === "organization.phone") return template.organizationPhone ?? undefined;
  if (path === "organization.website") return template.organizationWebsite ?? undefined;
  if (path.startsWith("assignedUser."))
    return template.assignedUser?.[path.slice("assignedUser.".length) as keyof AssignedUserValues];
  if (!lead) return undefined;
  const [root, ...rest] = path.split(".");
  let value: unknown =
    root === "lead"
      ? { id: lead.id, createdAt: lead.createdAt }
      : (lead as unknown as Record<string, unknown>)[root ?? ""];
  for (const segment of rest) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return scalarOf(value);
}

function scalarOf(value: unknown): unknown {
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    if ("number" in object) return object.number;
    if ("value" in object && Object.keys(object).length === 1) return object.value;
  }
  return value;
}

const isMissing = (value: unknown) =>
  value === undefined || value === null || (typeof value === "string" && value.trim() === "");

function asNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^-?(?:\d+)(?:\.\d+)?$/.test(value.trim())) return Number(value);
  return undefined;
}

function sameValue(actual: unknown, wanted: unknown): boolean {
  if (typeof wanted === "boolean" || typeof actual === "boolean")
    return String(actual).toLowerCase() === String(wanted).toLowerCase();
  const [a, b] = [asNumber(actual), asNumber(wanted)];
  if (a !== undefined && b !== undefined) return a === b;
  return String(actual).trim().toLowerCase() === String(wanted).trim().toLowerCase();
}

function compareLeadField(condition: Extract<Condition, { type: "LeadField" }>, actual: unknown): boolean {
  const settings = condition.settings as { value?: unknown; values?: unknown[] };
  if (isMissing(actual)) return ["NotEquals", "NotIn", "NotExists"].includes(condition.operator);
  const text = String(actual).toLowerCase();
  switch (condition.operator) {
    case "Equals":
      return sameValue(actual, settings.value);
    case "NotEquals":
      return !sameValue(actual, settings.value);
    case "Contains":
      return text.includes(String(settings.value).toLowerCase());
    case "StartsWith":
      return text.startsWith(String(settings.value).toLowerCase());
    case "In":
      return (settings.values ?? []).some((value) => sameValue(actual, value));
    case "NotIn":
      return !(settings.values ?? []).some((value) => sameValue(actual, value));
    case "Exists":
      return true;
    case "NotExists":
      return false;
    case "GreaterThan":
    case "LessThan": {
      const order = compareOrdered(actual, settings.value);
      if (order === undefined) return false;
      return condition.operator === "GreaterThan" ? order > 0 : order < 0;
    }
  }
}

/** Numbers (decimal strings included) compare numerically, ISO dates chronologically; anything else is incomparable. */
function compareOrdered(actual: unknown, wanted: unknown): number | undefined {
  if (typeof wanted === "number") {
    const number = asNumber(actual);
    return number === undefined ? undefined : Math.sign(number - wanted);
  }
  const [a, b] = [Date.parse(String(actual)), Date.parse(String(wanted))];
  return Number.isNaN(a) || Number.isNaN(b) ? undefined : Math.sign(a - b);
}

/**
 * Picks one connection at random in proportion to `weight` (`random` in [0, 1)); undefined when there is none.
 * Exposed for the split-distribution test.
 */
export function pickWeighted<T extends Pick<Connection, "weight">>(
  candidates: readonly T[],
  random: () => number = Math.random,
): T | undefined {
  const total = candidates.reduce((sum, candidate) => sum + candidate.weight, 0);
  if (total <= 0) return undefined;
  let point = random() * total;
  for (const candidate of candidates) {
    point -= candidate.weight;
    if (point < 0) return candidate;
  }
  return candidates.at(-1);
}
