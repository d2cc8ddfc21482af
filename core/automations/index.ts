import * as v from "valibot";
import { AutomationEntity } from "#core/db/entities/automations";
import { withoutKeys } from "#core/db/indexes";
import { wholeNumber, timestamp } from "#core/shared/ids";
import {
  ActionSchema,
  AutomationRequestSchema,
  ConditionGroupSchema,
  ConnectionSchema,
  TriggerSchema,
} from "#core/automations/definition";
import { type ListResource, listQuerySchema } from "#core/db/list";

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

export const listResource: ListResource<Automation> = {
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
  // Each automation is in a partition of its own (issue 27): the organization's automations are its creation index.
  candidates: (organizationId) => AutomationEntity.query("byCreation", { organizationId }),
  orders: {
    createdAt: (organizationId, _context, forward) =>
      AutomationEntity.plan("byCreation", { organizationId }, { forward }),
  },
};

export const ListAutomationsSchema = listQuerySchema(listResource);

/** The automation as an item of the table holds it, without its keys. */
export function toAutomation(item: Record<string, unknown>): Automation {
  const { entity: _entity, ...automation } = withoutKeys(item);
  return automation as Automation;
}
