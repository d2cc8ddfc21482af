/**
 * Automations of the caller's organization: definitions, versions and their last run. Plain functions, imported as a
 * namespace (`import * as Automations from "#core/automations/automations"`), so a Lambda bundles only the ones it
 * calls: a read carries none of the definition checks, egress guard or queue client its writes need.
 */
import { keepStoredCredentials, redactActions, visibleTo } from "#core/automations/secrets";
import { AutomationDisabled } from "#core/automations/runs/queue";
import * as Audit from "#core/audit/index";
import { AutomationEntity } from "#core/db/entities/automations";
import { where } from "#core/db/expression";
import { actorId, type Actor } from "#core/auth/actor";
import { newId, nowIso } from "#core/shared/ids";
import type { AutomationRequest } from "#core/automations/definition";
import { listPage } from "#core/db/list";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "#core/errors";
import { triggerIndexWrites, versionWrite } from "#core/automations/runs/trigger-index";
import * as Organizations from "#core/organizations/index";
import * as UserLookups from "#core/users/lookups";
import { publish } from "#core/queue/messages";
import type { Page, PagingQuery } from "#core/shared/paging";
import { listResource, toAutomation, type Automation } from "#core/automations/index";

/**
 * `automationId`: the id fixed by the request's Idempotency-Key. A retry after the first request died finds the
 * automation it stored (with its trigger index, one transaction) and answers it instead of storing a second.
 */
export async function create(
  actor: Actor,
  input: AutomationRequest,
  options: { automationId?: string } = {},
): Promise<Automation> {
  await assertPublicTargets(input.actions);
  await assertKnownUsers(actor.organizationId, input);
  const organization = await Organizations.fromId(actor.organizationId);
  return Audit.commit(actor, async (tx) => {
    if (options.automationId) {
      const stored = await AutomationEntity.get(
        { organizationId: actor.organizationId, id: options.automationId },
        { consistent: true },
      );
      if (stored) return { result: redactSecrets(toAutomation(stored)) };
    }
    const now = nowIso();
    const automation: Automation = {
      ...definitionFields(input),
      id: options.automationId ?? newId(),
      organizationId: actor.organizationId,
      createdByUserId: actorId(actor),
      managementLevel: "Organization",
      isSystemManaged: false,
      lastRunAt: null,
      lastRunStatus: null,
      version: 1,
      user: { id: actorId(actor), name: actor.displayName },
      organization: { id: actor.organizationId, name: organization?.name ?? actor.organizationId },
      createdAt: now,
      modifiedAt: null,
    };
    tx.put("change", AutomationEntity.create(automation))
      .include("triggers", ...triggerIndexWrites(actor.organizationId, undefined, automation, timeZoneOf(organization)))
      .include("version", versionWrite(automation));
    const created = redactSecrets(automation);
    return { change: { ...audit("created", automation.id), after: created }, result: created };
  });
}

export async function fromId(actor: Actor, automationId: string): Promise<Automation> {
  return redactSecrets(await storedAutomation(actor, automationId));
}

/**
 * Replaces the definition. A `version` in the body must match the stored one
 * (optimistic concurrency, else 409); every successful update increments it.
 */
export async function update(actor: Actor, automationId: string, input: AutomationRequest): Promise<Automation> {
  const organization = await Organizations.fromId(actor.organizationId);
  let disabled = false;
  const updated = await Audit.commit(
    actor,
    async (tx) => {
      const current = await storedAutomation(actor, automationId, { consistent: true });
      if (input.version !== undefined && input.version !== current.version) {
        throw new ConflictError(
          `The automation is at version ${current.version}, not ${input.version}; read it again and reapply your change.`,
        );
      }
      await assertPublicTargets(input.actions);
      await assertKnownUsers(actor.organizationId, input);
      const next = { ...definitionFields(input), actions: keepStoredCredentials(input.actions, current.actions) };
      if (current.isSystemManaged) assertOnlyEnabledChanged(current, next);
      const updated: Automation = {
        ...current,
        ...(current.isSystemManaged ? { enabled: next.enabled } : next),
        version: current.version + 1,
        modifiedAt: nowIso(),
      };
      disabled = current.enabled && !updated.enabled;
      // The version read is copied too: an automation stored before versions were copied with it may have runs of
      // that version still going, which read their definition from the copy once the automation moved on.
      tx.update("change", definitionUpdate(current, updated))
        .include("triggers", ...triggerIndexWrites(actor.organizationId, current, updated, timeZoneOf(organization)))
        .include("versions", versionWrite(current), versionWrite(updated));
      const [before, after] = [redactSecrets(current), redactSecrets(updated)];
      return { change: { ...audit("updated", automationId), before, after }, result: after };
    },
    {
      conflict: () =>
        new ConflictError("The automation was changed by another request; read it again and reapply your change."),
    },
  );
  if (disabled) await announceDisabled(actor.organizationId, automationId);
  return updated;
}

export async function remove(actor: Actor, automationId: string): Promise<void> {
  await Audit.commit(actor, async (tx) => {
    const current = await storedAutomation(actor, automationId, { consistent: true });
    if (current.isSystemManaged)
      throw new ForbiddenError("System-managed automations cannot be deleted; disable them instead.");
    tx.delete(
      "change",
      AutomationEntity.remove(
        { organizationId: actor.organizationId, id: automationId },
        { condition: where.equals("version", current.version) },
      ),
    ).include("triggers", ...triggerIndexWrites(actor.organizationId, current, undefined, "UTC"));
    return { change: { ...audit("deleted", automationId), before: redactSecrets(current) }, result: undefined };
  });
  await announceDisabled(actor.organizationId, automationId);
}

export async function list(actor: Actor, query: PagingQuery): Promise<Page<Automation>> {
  const page = await listPage(listResource, actor.organizationId, query);
  // A page may hold fewer items than asked for (others' Private automations are left out); the token still leads on.
  return { ...page, items: page.items.filter((automation) => visibleTo(actor, automation)).map(redactSecrets) };
}

/**
 * SETs the fields an edit owns and nothing else: the run engine writes
 * `lastRunAt`/`lastRunStatus`/`lastRunError` on the same item, and an edit must not overwrite them. Written over
 * the version read (another edit meanwhile makes it a 409).
 */
function definitionUpdate(current: Automation, updated: Automation) {
  const {
    lastRunAt: _lastRunAt,
    lastRunStatus: _lastRunStatus,
    lastRunError: _lastRunError,
    ...owned
  } = updated as Automation & { lastRunError?: unknown };
  return AutomationEntity.update(current, owned, {
    condition: where.all(where.stored(), where.equals("version", current.version)),
  });
}

/** An audit entry's action and resource for the automation. */
function audit(verb: string, automationId: string) {
  return { action: `automation.${verb}`, resourceType: "Automation", resourceId: automationId };
}

const timeZoneOf = (organization: { timeZone?: string } | undefined) => organization?.timeZone ?? "America/New_York";

/** Tells the run engine to cancel the automation's unfinished runs (automation-runs queue). */
async function announceDisabled(organizationId: string, automationId: string): Promise<void> {
  await publish(AutomationDisabled, organizationId, { automationId });
}

/**
 * Refuses at save time a receiver the run would refuse anyway (private address), so the owner learns it now. The
 * egress guard (ipaddr.js, ~13 KB) is loaded only for a definition that has an HttpRequest action.
 */
async function assertPublicTargets(actions: AutomationRequest["actions"]): Promise<void> {
  if (!actions.some((action) => action.type === "HttpRequest")) return;
  const { privateTargetRefusal } = await import("#core/automations/runs/egress");
  const refusals = await Promise.all(
    actions.map(async (action, index) => {
      if (action.type !== "HttpRequest") return undefined;
      const refusal = await privateTargetRefusal((action.settings as { url: string }).url);
      return refusal ? { pointer: `/actions/${index}/settings/url`, detail: refusal } : undefined;
    }),
  );
  const errors = refusals.filter((refusal) => refusal !== undefined);
  if (errors.length > 0)
    throw new ValidationError("An HttpRequest action targets an address automations may not call.", errors);
}

/** Refuses at save time an AssignLead action or Assignee condition naming no user of the organization. */
async function assertKnownUsers(organizationId: string, input: AutomationRequest): Promise<void> {
  const named = [
    ...input.actions.flatMap((action, index) =>
      action.type === "AssignLead" && action.settings?.userId
        ? [{ userId: action.settings.userId, pointer: `/actions/${index}/settings/userId` }]
        : [],
    ),
    ...(input.conditionGroups ?? []).flatMap((group, groupIndex) =>
      group.conditions.flatMap((condition, index) =>
        condition.type === "Assignee" && condition.settings && "userId" in condition.settings
          ? [
              {
                userId: condition.settings.userId,
                pointer: `/conditionGroups/${groupIndex}/conditions/${index}/settings/userId`,
              },
            ]
          : [],
      ),
    ),
  ];
  const unknown = await Promise.all(
    named.map(async ({ userId, pointer }) =>
      (await UserLookups.standing(organizationId, userId))
        ? undefined
        : { pointer, detail: `No user ${userId} in this organization.` },
    ),
  );
  const errors = unknown.filter((error) => error !== undefined);
  if (errors.length > 0)
    throw new ValidationError("The automation names someone who is not a user of this organization.", errors);
}

function definitionFields(input: AutomationRequest) {
  return {
    name: input.name,
    description: input.description ?? null,
    enabled: input.enabled,
    scope: input.scope,
    visibility: input.visibility,
    triggers: input.triggers,
    conditionGroups: input.conditionGroups,
    actions: input.actions,
    connections: input.connections,
  };
}

/** The stored automation, if the actor may see it: another agent's Private automation is as absent as a missing one. */
async function storedAutomation(
  actor: Actor,
  automationId: string,
  options: { consistent?: boolean } = {},
): Promise<Automation> {
  const item = await AutomationEntity.get({ organizationId: actor.organizationId, id: automationId }, options);
  const automation = item ? toAutomation(item) : undefined;
  if (!automation || !visibleTo(actor, automation)) throw new NotFoundError("Automation", automationId);
  return automation;
}

function redactSecrets(automation: Automation): Automation {
  return { ...automation, actions: redactActions(automation.actions) };
}

function assertOnlyEnabledChanged(current: Automation, next: ReturnType<typeof definitionFields>): void {
  const { enabled: _ignored, ...rest } = next;
  const changed = Object.entries(rest).some(
    ([field, value]) => JSON.stringify(value) !== JSON.stringify(current[field as keyof Automation]),
  );
  if (changed) throw new ForbiddenError("System-managed automations can only be enabled or disabled.");
}
