import type { Actor } from "#core/auth/actor";
import { conditionally, getItem, getItems, table } from "#core/db/items";
import { warmReads } from "#core/db/warm";
import { organizationProfile } from "#core/organizations/profile";
import { capPeriods, isWorkingTime } from "#core/routing/availability";
import { matchesConditions } from "#core/routing/conditions";
import { inTurn, leastRecentlyAssigned } from "#core/routing/strategies";
import { routingSettings, toSettings } from "#core/routing/settings";
import { openLeadClosed } from "#core/routing/open-count";
import { awayReads, reachableAgent } from "#core/routing/reachable";
import {
  RoutingAwayEntity,
  RoutingCounterEntity,
  RoutingDailyCountEntity,
  RoutingHourlyCountEntity,
  RoutingLastAssignedEntity,
  RoutingOpenCountEntity,
  RoutingSettingsEntity,
} from "#core/db/entities/routing";
import { computed, where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import type { TransactItem } from "#core/db/transact";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";
import { newId, nowIso } from "#core/shared/ids";
import * as UserLookups from "#core/users/lookups";
import type {
  RoutingAgent,
  RoutingAvailability,
  RoutingAway,
  RoutingRule,
  RoutingSettings,
  RoutingSettingsRequest,
} from "#core/routing/schemas";

export * from "#core/routing/schemas";

/**
 * How long a warm instance routes by the settings it read: every processed lead needs them, most organizations have
 * no rules, and a rule change reaches the other instances this much later (the instance that wrote it forgets at once).
 */
export const routingSettingsMs = 5_000;
const settingsReads = warmReads({ ttlMs: routingSettingsMs, maxEntries: 5_000 });

/** Why nobody of the rules could take a lead: no rule matched it, or nobody in the matched rule's pool may take it now. */
export type NoOneReason = "NoRuleMatched" | "NoEligibleUser";

/**
 * Where routing sent a lead: a user of a rule's pool (with the cap counts that must commit with it), an owner by the
 * `owner` fallback, or nobody.
 */
export type RoutingPick =
  /** `holdsOpen`: the user has an open-leads cap, and `writes` count this lead open for them (the lead notes `openFor`). */
  | { kind: "assign"; ruleId: string; userId: string; writes: TransactItem[]; holdsOpen: boolean }
  /** First to claim: the lead is offered to these members, and the first of them to claim it gets it. */
  | { kind: "offer"; ruleId: string; userIds: string[] }
  /** Nobody of the rules could take it (`reason`; `ruleId` the matched rule), and the fallback gives it to this owner. */
  | { kind: "fallback"; reason: NoOneReason; ruleId: string | null; userId: string }
  | { kind: "unassigned"; reason: NoOneReason; ruleId: string | null };

/**
 * Routing rules and lead-visibility settings of an organization (docs/routing.md). This aggregate decides who a
 * lead goes to; core/leads writes the assignment, in one transaction with the cap counts this returns.
 */

export { routingSettings as settings };

/** The settings' item joining a batch of other reads (lead processing's first read), unless this instance holds it warm. */
export const settingsRead = (organizationId: string) => settingsReads.planned(keys.routingSettings(organizationId));

export const read = (actor: Actor) => routingSettings(actor.organizationId);

/** `PUT /routing/settings`: every pool member must be a user of the organization. */
export async function replace(actor: Actor, input: RoutingSettingsRequest): Promise<RoutingSettings> {
  const errors = [];
  for (const [index, rule] of input.rules.entries()) {
    for (const [member, userId] of rule.pool.entries()) {
      if (!(await UserLookups.standing(actor.organizationId, userId)))
        errors.push({ pointer: `/rules/${index}/pool/${member}`, detail: `No user ${userId} in this organization.` });
    }
  }
  for (const [index, agent] of input.agents.entries()) {
    if (!(await UserLookups.standing(actor.organizationId, agent.userId)))
      errors.push({ pointer: `/agents/${index}/userId`, detail: `No user ${agent.userId} in this organization.` });
  }
  if (errors.length) throw new ValidationError("The routing settings name an unknown user.", errors);
  const ids = new Set<string>();
  const rules: RoutingRule[] = input.rules.map((rule, index) => {
    const id = rule.id ?? newId();
    if (ids.has(id))
      throw new ValidationError("Two routing rules have the same id.", [
        { pointer: `/rules/${index}/id`, detail: `Rule id ${id} is used twice.` },
      ]);
    ids.add(id);
    const weighted = rule.strategy === "weighted" && rule.weights ? { weights: rule.weights } : {};
    return {
      id,
      name: rule.name,
      conditions: rule.conditions,
      pool: [...new Set(rule.pool)],
      strategy: rule.strategy,
      ...weighted,
    };
  });
  // Replaced over the version read (or the client's): a save that crossed another never undoes it unseen.
  const { version: stored } = await routingSettings(actor.organizationId);
  const expected = input.version ?? stored;
  const stale = () =>
    new ConflictError(
      `The routing settings are at version ${stored}, not ${expected}; read them again and reapply your change.`,
    );
  if (expected !== stored) throw stale();
  const item = {
    agentsSeeAllLeads: input.agentsSeeAllLeads,
    agentsMayClaim: input.agentsMayClaim,
    rules,
    fallback: input.fallback,
    agents: input.agents,
    version: stored + 1,
    modifiedAt: nowIso(),
  };
  const saved = await conditionally(
    table.put(
      RoutingSettingsEntity.putAt({ organizationId: actor.organizationId }, item, {
        // Settings saved before they had a version are at version 0, as are settings never saved.
        condition: stored === 0 ? where.absentOrNull("version") : where.equals("version", stored),
      }),
    ),
  );
  if (!saved)
    throw new ConflictError(
      "The routing settings were changed by another request; read them again and reapply your change.",
    );
  settingsReads.forget(keys.routingSettings(actor.organizationId));
  return toSettings(item);
}

/**
 * Who the lead goes to: the first rule whose conditions it matches, then the rule's pool members who may take it
 * now (`eligibleMembers`), chosen by the rule's strategy. Round robin and weighted take a ticket from the rule's
 * counter with one atomic `ADD` (no read, no race to lose): concurrent leads get distinct consecutive tickets, so
 * they split exactly. The writes it answers must commit with the lead's assignment: the cap counts refuse past
 * their cap, the least-recently-assigned mark refuses if another lead moved it since it was read; a caller whose
 * transaction lost on one asks again. A lead nobody could take goes to the settings' `fallback`. Settings are
 * warm-read (`routingSettingsMs`): undefined, at no read, when the organization has no rules.
 */
export async function pick(organizationId: string, lead: Lead, now = new Date()): Promise<RoutingPick | undefined> {
  const settings = toSettings(await settingsReads.get(keys.routingSettings(organizationId)));
  if (!settings.rules.length) return undefined;
  const nobody = async (reason: NoOneReason, ruleId: string | null): Promise<RoutingPick> => {
    const owner = settings.fallback === "owner" ? await fallbackOwner(organizationId) : undefined;
    return owner ? { kind: "fallback", reason, ruleId, userId: owner } : { kind: "unassigned", reason, ruleId };
  };
  const rule = settings.rules.find((candidate) => matchesConditions(candidate.conditions, lead));
  if (!rule) return nobody("NoRuleMatched", null);
  const timeZone = (await organizationProfile(organizationId))?.timeZone ?? "UTC";
  const periods = capPeriods(timeZone, now);
  const eligible = await eligibleMembers(organizationId, rule.pool, settings.agents, lead, {
    timeZone,
    periods,
    now,
  });
  if (!eligible.length) return nobody("NoEligibleUser", rule.id);
  if (rule.strategy === "firstToClaim")
    return { kind: "offer", ruleId: rule.id, userIds: eligible.map((member) => member.userId) };
  const writes: TransactItem[] = [];
  let chosen: Member;
  if (rule.strategy === "leastRecentlyAssigned") {
    const marks = await getItems(
      eligible.map((member) => keys.routingLastAssigned(organizationId, member.userId)),
      { consistent: true },
    );
    const markOf = new Map(marks.map((item) => [item.userId as string, item.at as string]));
    chosen = leastRecentlyAssigned(eligible, markOf);
    writes.push(lastAssignedWrite(organizationId, chosen.userId, markOf.get(chosen.userId), now));
  } else {
    chosen = inTurn(
      eligible,
      await takeTicket(organizationId, rule.id),
      rule.strategy === "weighted" ? rule.weights : undefined,
    );
  }
  if (chosen.dailyCap !== null)
    writes.push(countWrite(organizationId, "day", periods.day, chosen.userId, chosen.dailyCap, now));
  if (chosen.hourlyCap !== null)
    writes.push(countWrite(organizationId, "hour", periods.hour, chosen.userId, chosen.hourlyCap, now));
  if (chosen.openCap !== null) writes.push(openCountWrite(organizationId, chosen.userId, chosen.openCap));
  return { kind: "assign", ruleId: rule.id, userId: chosen.userId, writes, holdsOpen: chosen.openCap !== null };
}

/** The write that closes one open lead of the user (core/routing/open-count.ts). */
export { openLeadClosed };

/** The user as calls and alerts reach them now (core/routing/reachable.ts). */
export { reachableAgent as reachable };

/** `GET /routing/agents/{userId}/away`: whether a user of the organization is away (read consistently: just set). */
export async function away(actor: Actor, userId: string): Promise<RoutingAvailability> {
  if (!(await UserLookups.standing(actor.organizationId, userId))) throw new NotFoundError("User", userId);
  const item = await getItem(keys.routingAway(actor.organizationId, userId), { consistent: true });
  return {
    userId,
    away: item?.away === true,
    modifiedAt: typeof item?.modifiedAt === "string" ? item.modifiedAt : null,
  };
}

/**
 * `PUT /routing/agents/{userId}/away`: a user marks themselves away (owners, admins and API keys may mark anyone);
 * routing skips an away user until they are back. Routing warm-reads the mark (`awayReads`).
 */
export async function setAway(actor: Actor, userId: string, input: RoutingAway): Promise<RoutingAvailability> {
  if (actor.role === "agent" && actor.userId !== userId)
    throw new ForbiddenError("An agent may only mark themselves away.");
  if (!(await UserLookups.standing(actor.organizationId, userId))) throw new NotFoundError("User", userId);
  const modifiedAt = nowIso();
  const key = keys.routingAway(actor.organizationId, userId);
  await table.put(
    RoutingAwayEntity.put({ organizationId: actor.organizationId, userId, away: input.away, modifiedAt }),
  );
  awayReads.forget(key);
  return { userId, away: input.away, modifiedAt };
}

type Member = RoutingAgent & { userId: string };

/**
 * The `owner` fallback's assignee: of the organization's active owners who are not away, the one who joined first
 * (by creation; deterministic, and the founding owner in most organizations). Caps, licences and working hours are
 * the rules' and do not apply. Undefined when every owner is away.
 */
async function fallbackOwner(organizationId: string): Promise<string | undefined> {
  for (const owner of await UserLookups.activeOwners(organizationId)) {
    if ((await awayReads.get(keys.routingAway(organizationId, owner.id)))?.away !== true) return owner.id;
  }
  return undefined;
}

/**
 * Pool members who may take this lead now: active users, not away, within their working hours (their time zone,
 * else the organization's), licensed for its state (when they hold a list), under their daily and hourly caps.
 */
async function eligibleMembers(
  organizationId: string,
  pool: string[],
  agents: RoutingAgent[],
  lead: Lead,
  at: { timeZone: string; periods: { day: string; hour: string }; now: Date },
): Promise<Member[]> {
  const settingsOf = new Map(agents.map((agent) => [agent.userId, agent]));
  const state = lead.contact.streetAddress?.state?.trim().toUpperCase();
  const standings = await Promise.all(pool.map((userId) => UserLookups.standing(organizationId, userId)));
  const away = await Promise.all(
    pool.map(async (userId) => (await awayReads.get(keys.routingAway(organizationId, userId)))?.away === true),
  );
  const members = pool
    .map((userId, index) => ({
      member: {
        dailyCap: null,
        hourlyCap: null,
        openCap: null,
        licensedStates: null,
        ...settingsOf.get(userId),
        userId,
      },
      standing: standings[index],
      away: away[index],
    }))
    .filter(
      ({ member, standing, away }) =>
        standing?.active &&
        !away &&
        isWorkingTime(standing.workingHours, standing.timeZone ?? at.timeZone, at.now) &&
        (!member.licensedStates || (state !== undefined && member.licensedStates.includes(state))),
    )
    .map(({ member }) => member);
  const countKeys = members.flatMap((member) => [
    ...(member.dailyCap !== null ? [keys.routingDailyCount(organizationId, at.periods.day, member.userId)] : []),
    ...(member.hourlyCap !== null ? [keys.routingHourlyCount(organizationId, at.periods.hour, member.userId)] : []),
    ...(member.openCap !== null ? [keys.routingOpenCount(organizationId, member.userId)] : []),
  ]);
  const counts = new Map(
    (await getItems(countKeys, { consistent: true })).map((item) => [
      `${item.sk as string}`,
      Number(item.assigned ?? item.open ?? 0),
    ]),
  );
  const under = (key: { sk: string }, cap: number | null) => cap === null || (counts.get(key.sk) ?? 0) < cap;
  return members.filter(
    (member) =>
      under(keys.routingDailyCount(organizationId, at.periods.day, member.userId), member.dailyCap) &&
      under(keys.routingHourlyCount(organizationId, at.periods.hour, member.userId), member.hourlyCap) &&
      under(keys.routingOpenCount(organizationId, member.userId), member.openCap),
  );
}

/**
 * The rule's next round-robin position (0, 1, 2, …): `seq` counts the tickets taken. A ticket taken by a lead that
 * then is not assigned with it (the process crashed in between, or a redelivered copy of the lead won) is skipped,
 * which moves the split by one; it never assigns a lead twice.
 */
async function takeTicket(organizationId: string, ruleId: string): Promise<number> {
  const { Attributes } = await table.update({
    ...RoutingCounterEntity.update(
      { organizationId, ruleId },
      { seq: computed.increment(), entity: RoutingCounterEntity.name, organizationId, ruleId },
    ),
    ReturnValues: "UPDATED_NEW",
  });
  return Number(Attributes?.seq) - 1;
}

/** One more lead for the user in a cap's period, refused at the cap, so concurrent routing never takes a user past it. */
/** Counts one more open lead of the user, refused at the cap (like the period counts, but with no period). */
function openCountWrite(organizationId: string, userId: string, cap: number): TransactItem {
  return {
    Update: RoutingOpenCountEntity.update(
      { organizationId, userId },
      { open: computed.increment(), entity: RoutingOpenCountEntity.name, organizationId, userId },
      { condition: where.any(where.absent("open"), where.before("open", cap)) },
    ),
  };
}

function countWrite(
  organizationId: string,
  period: "day" | "hour",
  key: string,
  userId: string,
  cap: number,
  now: Date,
): TransactItem {
  const keepDays = period === "day" ? 3 : 1;
  const changes = {
    assigned: computed.increment(),
    organizationId,
    userId,
    expiresAt: Math.floor(now.getTime() / 1000) + keepDays * 86_400,
  };
  const counts = period === "day" ? RoutingDailyCountEntity : RoutingHourlyCountEntity;
  return {
    Update: counts.update(
      { organizationId, period: key, userId },
      { ...changes, entity: counts.name },
      { condition: where.any(where.absent("assigned"), where.before("assigned", cap)) },
    ),
  };
}

/** The user was given a lead now, if nobody gave them one since `read` (so two leads never take the same "longest waiting"). */
function lastAssignedWrite(organizationId: string, userId: string, read: string | undefined, now: Date): TransactItem {
  return {
    Update: RoutingLastAssignedEntity.update(
      { organizationId, userId },
      { at: now.toISOString(), entity: RoutingLastAssignedEntity.name, organizationId, userId },
      { condition: read === undefined ? where.absent("at") : where.equals("at", read) },
    ),
  };
}
