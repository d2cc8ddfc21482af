import * as v from "valibot";
import {
  ClockTimeSchema,
  LeadFieldPathSchema,
  NodeIdSchema,
  problemCheck,
  ResourceIdSchema,
  ScalarSchema,
  nodeSchema,
  settingsSchema,
} from "./common.ts";
import { minutesOfDay } from "./time.ts";
import {
  automationLimits,
  ConditionGroupModeSchema,
  ConsentStatusSchema,
  replyWindows,
  WeekdaySchema,
  type ConditionOperator,
  type ConditionType,
} from "./values.ts";

const isoDatePattern = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** A number, or an ISO 8601 date / date-time (compared chronologically). */
const OrderedValueSchema = v.union(
  [
    v.number(),
    v.pipe(
      v.string(),
      v.check(
        (value) => isoDatePattern.test(value) && !Number.isNaN(Date.parse(value)),
        "Must be a number or an ISO 8601 date or date-time.",
      ),
    ),
  ],
  "Must be a number or an ISO 8601 date or date-time.",
);

const inValues = <TItem extends v.GenericSchema>(item: TItem) =>
  v.pipe(v.array(item), v.minLength(1), v.maxLength(automationLimits.inValues));

export const LeadFieldEqualsSettingsSchema = settingsSchema(
  "Compares a lead field with a value (strings case-insensitively).",
  { field: LeadFieldPathSchema, value: ScalarSchema },
);
export const LeadFieldTextSettingsSchema = settingsSchema(
  "Whether a text lead field contains / starts with a value (case-insensitive).",
  { field: LeadFieldPathSchema, value: v.pipe(v.string(), v.minLength(1), v.maxLength(1000)) },
);
export const LeadFieldInSettingsSchema = settingsSchema("Whether a lead field equals one of the values.", {
  field: LeadFieldPathSchema,
  values: inValues(ScalarSchema),
});
export const LeadFieldExistsSettingsSchema = settingsSchema("Whether a lead field has a non-empty value.", {
  field: LeadFieldPathSchema,
});
export const LeadFieldOrderSettingsSchema = settingsSchema(
  "Compares a numeric (or decimal string) or date lead field with a value.",
  { field: LeadFieldPathSchema, value: OrderedValueSchema },
);

export const TimeOfDaySettingsSchema = v.pipe(
  settingsSchema(
    "Whether the current time in the organization's time zone is within [start, end); end before start wraps midnight.",
    { start: ClockTimeSchema, end: ClockTimeSchema },
  ),
  problemCheck(({ start, end }) =>
    minutesOfDay(start) === minutesOfDay(end) ? "start and end must differ." : undefined,
  ),
);

export const WeekdaySettingsSchema = settingsSchema("Whether today (organization's time zone) is one of the days.", {
  days: v.pipe(
    v.array(WeekdaySchema),
    v.minLength(1),
    v.check((days) => new Set(days).size === days.length, "Each weekday may appear only once."),
  ),
});

export const LeadAgeSettingsSchema = settingsSchema(
  "Compares the time since the lead was created with a number of seconds.",
  {
    seconds: v.pipe(v.number(), v.integer(), v.minValue(0)),
  },
);

export const HasRepliedSettingsSchema = settingsSchema(
  "Whether the lead has sent an inbound message (since the run started by default).",
  {
    value: v.boolean(),
    since: v.optional(v.picklist(replyWindows), "RunStarted"),
  },
);

export const ConsentStatusEqualsSettingsSchema = settingsSchema("Compares the lead's SMS consent status.", {
  value: ConsentStatusSchema,
});
export const ConsentStatusInSettingsSchema = settingsSchema(
  "Whether the lead's SMS consent status is one of the values.",
  {
    values: inValues(ConsentStatusSchema),
  },
);

export const AssignedAnyoneSettingsSchema = settingsSchema(
  "Whether the lead is assigned to anyone (Exists) or to nobody (NotExists).",
  {},
);
export const AssignedUserSettingsSchema = settingsSchema(
  "Whether the lead is (Equals) or is not (NotEquals) assigned to this user of the organization.",
  { userId: ResourceIdSchema },
);

/* @__NO_SIDE_EFFECTS__ */
function condition<
  const TType extends ConditionType,
  const TOperators extends readonly [ConditionOperator, ...ConditionOperator[]],
  TSettings extends v.GenericSchema<Record<string, unknown>>,
>(type: TType, operators: TOperators, settings: TSettings) {
  return nodeSchema(type, { operator: v.picklist(operators) }, settings);
}

/** Operators each condition type accepts (documented in docs/automations.md). */
export const operatorsByConditionType = {
  LeadField: [
    "Equals",
    "NotEquals",
    "Contains",
    "StartsWith",
    "In",
    "NotIn",
    "Exists",
    "NotExists",
    "GreaterThan",
    "LessThan",
  ],
  TimeOfDay: ["Between", "NotBetween"],
  Weekday: ["In", "NotIn"],
  LeadAge: ["GreaterThan", "LessThan"],
  HasReplied: ["Equals", "NotEquals"],
  ConsentStatus: ["Equals", "NotEquals", "In", "NotIn"],
  Assignee: ["Exists", "NotExists", "Equals", "NotEquals"],
} as const satisfies Record<ConditionType, readonly ConditionOperator[]>;

/** A condition; `type`, then (for LeadField, ConsentStatus and Assignee) `operator`, selects the settings schema. */
export const ConditionSchema = v.variant("type", [
  v.variant("operator", [
    condition("LeadField", ["Equals", "NotEquals"], LeadFieldEqualsSettingsSchema),
    condition("LeadField", ["Contains", "StartsWith"], LeadFieldTextSettingsSchema),
    condition("LeadField", ["In", "NotIn"], LeadFieldInSettingsSchema),
    condition("LeadField", ["Exists", "NotExists"], LeadFieldExistsSettingsSchema),
    condition("LeadField", ["GreaterThan", "LessThan"], LeadFieldOrderSettingsSchema),
  ]),
  condition("TimeOfDay", operatorsByConditionType.TimeOfDay, TimeOfDaySettingsSchema),
  condition("Weekday", operatorsByConditionType.Weekday, WeekdaySettingsSchema),
  condition("LeadAge", operatorsByConditionType.LeadAge, LeadAgeSettingsSchema),
  condition("HasReplied", operatorsByConditionType.HasReplied, HasRepliedSettingsSchema),
  v.variant("operator", [
    condition("ConsentStatus", ["Equals", "NotEquals"], ConsentStatusEqualsSettingsSchema),
    condition("ConsentStatus", ["In", "NotIn"], ConsentStatusInSettingsSchema),
  ]),
  v.variant("operator", [
    condition("Assignee", ["Exists", "NotExists"], AssignedAnyoneSettingsSchema),
    condition("Assignee", ["Equals", "NotEquals"], AssignedUserSettingsSchema),
  ]),
]);

/** A group of conditions combined with `all` (every enabled condition true) or `any` (at least one). */
export const ConditionGroupSchema = v.strictObject({
  id: NodeIdSchema,
  mode: v.optional(ConditionGroupModeSchema, "all"),
  conditions: v.pipe(v.array(ConditionSchema), v.minLength(1), v.maxLength(automationLimits.conditionsPerGroup)),
});

export type ConditionInput = v.InferInput<typeof ConditionSchema>;
export type Condition = v.InferOutput<typeof ConditionSchema>;
export type ConditionGroupInput = v.InferInput<typeof ConditionGroupSchema>;
export type ConditionGroup = v.InferOutput<typeof ConditionGroupSchema>;
