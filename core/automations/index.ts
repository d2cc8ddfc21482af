import { keepStoredCredentials, redactActions, visibleTo } from "#core/automations/secrets";
import { automationSummaries, type AutomationSummary } from "#core/automations/summaries";
import { AutomationDisabled } from "#core/automations/runs/queue";
import * as v from "valibot";
import { transact, Transaction, TransactionConditionFailed } from "#core/db/transact";
import { table } from "#core/db/items";
import { actorId, type Actor } from "#core/auth/actor";
import { wholeNumber, newId, nowIso, timestamp } from "#core/shared/ids";
import {
  ActionSchema,
  AutomationRequestSchema,
  ConditionGroupSchema,
  ConnectionSchema,
  TriggerSchema,
  type AutomationRequest,
} from "#core/automations/definition";
import { entities, keys } from "#core/db/keys";
import { keyOrder, listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { privateTargetRefusal } from "#core/automations/runs/egress";
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from "#core/errors";
import { triggerIndexWrites } from "#core/automations/runs/trigger-index";
import "#core/automations/runs/queue";
import { Organizations } from "#core/organizations/index";
import { Users } from "#core/users/index";
import { publish } from "#core/queue/messages";
import { type Page, type PagingQuery } from "#core/shared/paging";

export { AutomationRequestSchema };

const summary = v.object({ id: v.string(), name: v.string() });

/** The automation as every read and write answers it (spec 2.2). */
export const AutomationSchema = v.object({
  id: v.string(),
  name: v.string(),
  description: v.nullable(v.string()),
  enabled: v.boolean(),
  organizationId: v.string(),
  createdByUserId: v.string(),
  scope: v.string(),
  visibility: v.string(),
  managementLevel: v.string(),
  isSystemManaged: v.boolean(),
  triggers: v.array(TriggerSchema),
  conditionGroups: v.array(ConditionGroupSchema),
  actions: v.array(ActionSchema),
  connections: v.array(ConnectionSchema),
  lastRunAt: v.nullable(timestamp),
  lastRunStatus: v.nullable(v.string()),
  version: wholeNumber,
  user: summary,
  organization: summary,
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
});
export type Automation = v.InferOutput<typeof AutomationSchema>;

export { redactedSecret } from "#core/automations/secrets";

const listResource: ListResource<Automation> = {
  name: "automations",
  fields: {
    name: { get: (a) => a.name, kind: "string", filter: true, sort: true, search: true },
    description: { get: (a) => a.description, kind: "string", search: true },
    enabled: { get: (a) => a.enabled, kind: "boolean", filter: true },
    scope: { get: (a) => a.scope, kind: "string", filter: true },
    visibility: { get: (a) => a.visibility, kind: "string", filter: true },
    isSystemManaged: { get: (a) => a.isSystemManaged, kind: "boolean", filter: true },
    lastRunStatus: { get: (a) => a.lastRunStatus, kind: "string", filter: true },
    lastRunAt: { get: (a) => a.lastRunAt, kind: "date", sort: true, range: true },
    createdAt: { get: (a) => a.createdAt, kind: "date", sort: true, range: true },
    modifiedAt: { get: (a) => a.modifiedAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (a) => a.id,
  fromItem: toAutomation,
  candidates: (organizationId) => {
    const { pk, skPrefix } = keys.automationPrefix(organizationId);
    return {
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      ExpressionAttributeValues: { ":pk": pk, ":prefix": skPrefix },
    };
  },
  orders: { createdAt: keyOrder(keys.automationPrefix) },
};

export const ListAutomationsSchema = listQuerySchema(listResource);

/** Automations of the caller's organization: definitions, versions and their last run. */

export type { AutomationSummary };

export const Automations = {
  summaries: automationSummaries,

  /**
   * `automationId`: the id fixed by the request's Idempotency-Key. A retry after the first request died finds the
   * automation it stored (with its trigger index, one transaction) and answers it instead of storing a second.
   */
  async create(actor: Actor, input: AutomationRequest, options: { automationId?: string } = {}): Promise<Automation> {
    if (options.automationId) {
      const { Item } = await table.get({
        Key: keys.automation(actor.organizationId, options.automationId),
        ConsistentRead: true,
      });
      if (Item) return redactSecrets(toAutomation(Item));
    }
    await assertPublicTargets(input.actions);
    await assertKnownUsers(actor.organizationId, input);
    const organization = await Organizations.fromId(actor.organizationId);
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
    await transact([
      {
        Put: {
          Item: { ...keys.automation(actor.organizationId, automation.id), entity: entities.automation, ...automation },
          ConditionExpression: "attribute_not_exists(pk)",
        },
      },
      ...triggerIndexWrites(actor.organizationId, undefined, automation, timeZoneOf(organization)),
    ]);
    return redactSecrets(automation);
  },

  async fromId(actor: Actor, automationId: string): Promise<Automation> {
    return redactSecrets(await storedAutomation(actor, automationId));
  },

  /**
   * Replaces the definition. A `version` in the body must match the stored one
   * (optimistic concurrency, else 409); every successful update increments it.
   */
  async update(actor: Actor, automationId: string, input: AutomationRequest): Promise<Automation> {
    const current = await storedAutomation(actor, automationId);
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
    const organization = await Organizations.fromId(actor.organizationId);
    try {
      await transact(
        new Transaction()
          .update("automation", {
            Key: keys.automation(actor.organizationId, automationId),
            ...definitionUpdate(updated),
            ConditionExpression: "attribute_exists(pk) AND version = :expectedVersion",
          })
          .include("triggers", ...triggerIndexWrites(actor.organizationId, current, updated, timeZoneOf(organization))),
      );
    } catch (error) {
      if (error instanceof TransactionConditionFailed && error.failed("automation")) {
        throw new ConflictError(
          "The automation was changed by another request; read it again and reapply your change.",
        );
      }
      throw error;
    }
    if (current.enabled && !updated.enabled) await announceDisabled(actor.organizationId, automationId);
    return redactSecrets(updated);
  },

  async remove(actor: Actor, automationId: string): Promise<void> {
    const current = await storedAutomation(actor, automationId);
    if (current.isSystemManaged)
      throw new ForbiddenError("System-managed automations cannot be deleted; disable them instead.");
    await transact([
      { Delete: { Key: keys.automation(actor.organizationId, automationId) } },
      ...triggerIndexWrites(actor.organizationId, current, undefined, "UTC"),
    ]);
    await announceDisabled(actor.organizationId, automationId);
  },

  async list(actor: Actor, query: PagingQuery): Promise<Page<Automation>> {
    const page = await listPage(listResource, actor.organizationId, query);
    // A page may hold fewer items than asked for (others' Private automations are left out); the token still leads on.
    return { ...page, items: page.items.filter((automation) => visibleTo(actor, automation)).map(redactSecrets) };
  },
};

/**
 * SETs the fields an edit owns and nothing else: the run engine writes
 * `lastRunAt`/`lastRunStatus`/`lastRunError` on the same item, and an edit must not overwrite them.
 */
function definitionUpdate(updated: Automation) {
  const {
    lastRunAt: _lastRunAt,
    lastRunStatus: _lastRunStatus,
    lastRunError: _lastRunError,
    ...owned
  } = updated as Automation & { lastRunError?: unknown };
  const fields = Object.entries(owned);
  return {
    UpdateExpression: `SET ${fields.map((_, index) => `#f${index} = :v${index}`).join(", ")}`,
    ExpressionAttributeNames: Object.fromEntries(fields.map(([name], index) => [`#f${index}`, name])),
    ExpressionAttributeValues: {
      ...Object.fromEntries(fields.map(([, value], index) => [`:v${index}`, value])),
      ":expectedVersion": updated.version - 1,
    },
  };
}

const timeZoneOf = (organization: { timeZone?: string } | undefined) => organization?.timeZone ?? "America/New_York";

/** Tells the run engine to cancel the automation's unfinished runs (automation-runs queue). */
async function announceDisabled(organizationId: string, automationId: string): Promise<void> {
  await publish(AutomationDisabled, organizationId, { automationId });
}

/** Refuses at save time a receiver the run would refuse anyway (private address), so the owner learns it now. */
async function assertPublicTargets(actions: AutomationRequest["actions"]): Promise<void> {
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
      (await Users.standing(organizationId, userId))
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
async function storedAutomation(actor: Actor, automationId: string): Promise<Automation> {
  const { Item } = await table.get({ Key: keys.automation(actor.organizationId, automationId) });
  const automation = Item ? toAutomation(Item) : undefined;
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

function toAutomation(item: Record<string, unknown>): Automation {
  const { pk: _pk, sk: _sk, entity: _entity, ...automation } = item;
  return automation as Automation;
}
