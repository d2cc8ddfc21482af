/**
 * The automation definition model (spec 2.1, issue 6 "Definition"): allowed values, one settings schema per node
 * type, the request schema and the workflow graph rules. Pure: no I/O. Documented in docs/automations.md.
 */
import * as v from "valibot";
import { maxChars, toIssuePath } from "#core/shared/validation";
import { ActionSchema } from "./definition/actions.ts";
import { NodeIdSchema, text } from "./definition/common.ts";
import { ConditionGroupSchema } from "./definition/conditions.ts";
import { findGraphProblems } from "./definition/graph.ts";
import { TriggerSchema } from "./definition/triggers.ts";
import { automationLimits, AutomationScopeSchema, AutomationVisibilitySchema } from "./definition/values.ts";

export * from "./definition/values.ts";
export * from "./definition/triggers.ts";
export * from "./definition/conditions.ts";
export * from "./definition/actions.ts";
export {
  validateAutomationGraph,
  findGraphProblems,
  type AutomationGraph,
  type GraphProblem,
} from "./definition/graph.ts";
export {
  parseTemplate,
  renderTemplate,
  jsonStringEncode,
  type RenderOptions,
  type TemplatePlaceholder,
} from "./definition/template.ts";
export { parseCron, minutesOfDay, isWithinWindow, type CronFields } from "./definition/time.ts";
export {
  leadFields,
  leadFieldPathProblem,
  templatePathProblem,
  writableFieldPathProblem,
} from "./definition/lead-fields.ts";
export { speedToLeadExample, webhookOnFailureExample } from "./definition/examples.ts";

/** A directed link between two nodes; among several outgoing links one is picked at random in proportion to `weight`. */
export const ConnectionSchema = v.strictObject({
  id: NodeIdSchema,
  sourceNodeId: v.pipe(v.string(), v.minLength(1)),
  targetNodeId: v.pipe(v.string(), v.minLength(1)),
  weight: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)), 1),
});

/** Response-only fields a client may echo back from a GET (round trip into PUT); accepted and ignored. */
const readOnlyFields = [
  "organizationId",
  "createdByUserId",
  "managementLevel",
  "isSystemManaged",
  "lastRunAt",
  "lastRunStatus",
  "user",
  "organization",
  "createdAt",
  "modifiedAt",
] as const;

type ReadOnlyField = (typeof readOnlyFields)[number];

// Annotated (as valibot's own functions are) so that a bundle which never validates a body drops the schemas built
// with it: a Lambda that only reads automations carries none of the definition's checks.
/* @__NO_SIDE_EFFECTS__ */
function listOf<TItem extends v.GenericSchema>(item: TItem, max: number) {
  return v.optional(v.pipe(v.array(item), v.maxLength(max)), () => []);
}

/** Each response-only field, accepted as anything. */
/* @__NO_SIDE_EFFECTS__ */
function echoedReadOnlyFields() {
  return Object.fromEntries(readOnlyFields.map((field) => [field, v.optional(v.unknown())])) as Record<
    ReadOnlyField,
    v.OptionalSchema<v.UnknownSchema, undefined>
  >;
}

// Object.assign rather than a spread, which the bundler keeps as an effect.
const AutomationBodySchema = v.strictObject(
  /* @__PURE__ */ Object.assign(
    {
      id: v.optional(text(64)),
      name: text(automationLimits.nameLength),
      description: v.nullish(v.pipe(v.string(), v.trim(), maxChars(automationLimits.descriptionLength))),
      enabled: v.optional(v.boolean(), false),
      scope: v.optional(AutomationScopeSchema, "Organization"),
      visibility: v.optional(AutomationVisibilitySchema, "Organization"),
      triggers: listOf(TriggerSchema, automationLimits.triggers),
      conditionGroups: listOf(ConditionGroupSchema, automationLimits.conditionGroups),
      actions: listOf(ActionSchema, automationLimits.actions),
      connections: listOf(ConnectionSchema, automationLimits.connections),
      version: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
    },
    echoedReadOnlyFields(),
  ),
);

type AutomationBody = v.InferOutput<typeof AutomationBodySchema>;

/** Drops echoed response-only fields and gives each action without `order` its position in `actions`. */
function normalize(body: AutomationBody) {
  const definition = Object.fromEntries(
    Object.entries(body).filter(([key]) => !(readOnlyFields as readonly string[]).includes(key)),
  ) as Omit<AutomationBody, ReadOnlyField>;
  return {
    ...definition,
    actions: definition.actions.map((action, index) => ({ ...action, order: action.order ?? index })),
  };
}

/**
 * Body of `POST /automations` and `PUT /automations/{id}` (spec 2.1): validates every node's settings and then the
 * graph rules, so each problem is an issue whose path points at the offending node, setting or connection.
 */
export const AutomationRequestSchema = v.pipe(
  AutomationBodySchema,
  v.transform(normalize),
  v.rawCheck<ReturnType<typeof normalize>>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    for (const problem of findGraphProblems(dataset.value)) {
      addIssue({ message: problem.detail, path: toIssuePath(dataset.value, problem.path) });
    }
  }),
);

/** The request as a client sends it (optional fields may be absent). */
export type AutomationRequestInput = v.InferInput<typeof AutomationRequestSchema>;
/** The validated request with defaults applied (`enabled` false, arrays `[]`, `isEnabled` true, `order`, `weight` 1). */
export type AutomationRequest = v.InferOutput<typeof AutomationRequestSchema>;
export type ConnectionInput = v.InferInput<typeof ConnectionSchema>;
export type Connection = v.InferOutput<typeof ConnectionSchema>;
