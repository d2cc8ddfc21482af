/**
 * What the automation form asks for each trigger, condition and action type: one entry per setting the API's schema
 * has (core/automations/definition/*). The API stays the judge of validity; these only shape the inputs.
 *
 * The tables are typed against the API's own unions (the generated contract), so a type or an operator the API
 * gains without a form here fails the web type check instead of being silently missing from the form.
 */
import type { components } from "../../api/schema";
import type { FieldSpec } from "../../forms/SettingInput";

type Automation = components["schemas"]["Automation"];
type Condition = Automation["conditionGroups"][number]["conditions"][number];
export type TriggerType = Automation["triggers"][number]["type"];
export type ConditionType = Condition["type"];
export type ActionType = Automation["actions"][number]["type"];
type OperatorOf<TType extends ConditionType> = Extract<Condition, { type: TType }>["operator"];

const leadFieldHint = "A lead field such as contact.firstName, metadata.product or customer.creditScore.";
const templateHint = "Placeholders such as {{contact.firstName|there}} fill in lead fields.";
const idsHint = "Ids, one a line; empty means any.";

const typeLabels = {
  LeadCreated: "New lead",
  MessageReceived: "Text received",
  MessageFailed: "Text failed",
  CallMissed: "Missed call",
  LeadOptedOut: "Lead opted out",
  Schedule: "Schedule",
  Manual: "Started by hand",
  LeadField: "Lead field",
  TimeOfDay: "Time of day",
  Weekday: "Day of the week",
  LeadAge: "Lead age",
  HasReplied: "Lead has replied",
  ConsentStatus: "Consent status",
  Assignee: "Assignee",
  SendSms: "Send a text",
  SendMms: "Send a picture message",
  Wait: "Wait",
  HttpRequest: "Call a webhook",
  UpdateLead: "Update the lead",
  AddToSuppression: "Add to suppression list",
  PlaceCall: "Place a call",
  AssignLead: "Assign the lead",
  Stop: "Stop",
} satisfies Record<TriggerType | ConditionType | ActionType, string>;

/** A trigger's, condition's, action's or run step's type in words ("Send a text"); an unknown one as the API names it. */
export function typeLabel(type: string): string {
  return (typeLabels as Record<string, string>)[type] ?? type;
}

const processingStatuses = ["Pending", "Processed", "Duplicate", "Rejected", "Failed"] as const;
const consentStatuses = ["OptedIn", "OptedOut", "Unverified", "Unknown"] as const;
const weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

export const triggerFields = {
  LeadCreated: [{ key: "sourceIds", label: "Only from these sources", kind: "lines", hint: idsHint }],
  MessageReceived: [
    { key: "phoneNumberIds", label: "Only to these numbers", kind: "lines", hint: idsHint },
    {
      key: "keywords",
      label: "Only texts with these keywords",
      kind: "lines",
      hint: "One a line; empty means any text.",
    },
  ],
  MessageFailed: [
    { key: "statuses", label: "Outcomes", kind: "checks", options: ["Failed", "Undeliverable"] },
    { key: "phoneNumberIds", label: "Only from these numbers", kind: "lines", hint: idsHint },
  ],
  CallMissed: [{ key: "phoneNumberIds", label: "Only to these numbers", kind: "lines", hint: idsHint }],
  LeadOptedOut: [],
  Schedule: [
    {
      key: "cron",
      label: "Cron expression",
      kind: "text",
      hint: "Five fields, such as 0 9 * * 1-5; or give an interval instead.",
    },
    { key: "intervalMinutes", label: "Every N minutes", kind: "number" },
    {
      key: "audience.createdWithinDays",
      label: "Leads created in the last N days",
      kind: "number",
      hint: "Any audience setting runs once per matching lead.",
    },
    { key: "audience.sourceId", label: "Only leads of source (id)", kind: "text" },
    { key: "audience.processingStatus", label: "Processing statuses", kind: "checks", options: processingStatuses },
    { key: "audience.vertical", label: "Vertical", kind: "text" },
    { key: "audience.product", label: "Product", kind: "text" },
    { key: "audience.excludeOptedOut", label: "Leave out opted-out leads", kind: "maybe" },
    { key: "audience.maxLeads", label: "At most N leads a firing", kind: "number" },
  ],
  Manual: [],
} satisfies Record<TriggerType, FieldSpec[]>;
/** In the order the type menu offers them. */
export const triggerTypes = Object.keys(triggerFields) as TriggerType[];

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
} as const satisfies { [TType in ConditionType]: readonly OperatorOf<TType>[] };
export const conditionTypes = Object.keys(operatorsByConditionType) as ConditionType[];

/** An operator the API takes for a type but the menu lacks (never, when the menus are complete). */
type UnofferedOperator = {
  [TType in ConditionType]: Exclude<OperatorOf<TType>, (typeof operatorsByConditionType)[TType][number]>;
}[ConditionType];
// Fails the type check, naming the operator, when the API gains one the menu does not offer.
const _everyOperatorOffered: [UnofferedOperator] extends [never] ? true : UnofferedOperator = true;

export const operatorLabels: Record<OperatorOf<ConditionType>, string> = {
  Equals: "is",
  NotEquals: "is not",
  Contains: "contains",
  StartsWith: "starts with",
  In: "is one of",
  NotIn: "is none of",
  Exists: "has a value",
  NotExists: "is empty",
  GreaterThan: "is more than",
  LessThan: "is less than",
  Between: "is between",
  NotBetween: "is not between",
};

/** A condition's settings depend on its type and, for lead fields, consent and the assignee, on the operator too. */
export function conditionFields(type: ConditionType, operator: string): FieldSpec[] {
  const field: FieldSpec = { key: "field", label: "Field", kind: "text", hint: leadFieldHint };
  switch (type) {
    case "LeadField":
      if (operator === "Exists" || operator === "NotExists") return [field];
      if (operator === "In" || operator === "NotIn")
        return [field, { key: "values", label: "Values", kind: "scalars", hint: "One a line." }];
      if (operator === "Contains" || operator === "StartsWith")
        return [field, { key: "value", label: "Text", kind: "text" }];
      if (operator === "GreaterThan" || operator === "LessThan")
        return [field, { key: "value", label: "Number or date", kind: "ordered" }];
      return [field, { key: "value", label: "Value", kind: "scalar" }];
    case "TimeOfDay":
      return [
        { key: "start", label: "From", kind: "time" },
        { key: "end", label: "Until", kind: "time" },
      ];
    case "Weekday":
      return [{ key: "days", label: "Days", kind: "checks", options: weekdays }];
    case "LeadAge":
      return [{ key: "seconds", label: "Seconds since the lead came in", kind: "number" }];
    case "HasReplied":
      return [
        { key: "value", label: "Has replied", kind: "yesno" },
        {
          key: "since",
          label: "Counting replies since",
          kind: "select",
          options: ["RunStarted", "LeadCreated"],
          optional: true,
        },
      ];
    case "ConsentStatus":
      return operator === "In" || operator === "NotIn"
        ? [{ key: "values", label: "Statuses", kind: "checks", options: consentStatuses }]
        : [{ key: "value", label: "Status", kind: "select", options: consentStatuses }];
    case "Assignee":
      return operator === "Exists" || operator === "NotExists"
        ? []
        : [{ key: "userId", label: "Person", kind: "person" }];
    default: {
      // A condition type the contract gains without a form here fails the type check on this line, while an
      // automation stored with a type newer than this dashboard still opens (its settings kept as stored).
      const unknownType: never = type;
      console.warn(`No form for the condition type ${String(unknownType)}`);
      return [];
    }
  }
}

const fromNumber: FieldSpec = {
  key: "fromPhoneNumberId",
  label: "From number (id)",
  kind: "text",
  hint: "Empty: the lead's assigned number.",
};
const fallback: FieldSpec = { key: "fallback", label: "Fallback for empty placeholders", kind: "text" };

export const actionFields = {
  SendSms: [{ key: "body", label: "Message", kind: "textarea", hint: templateHint }, fallback, fromNumber],
  SendMms: [
    { key: "body", label: "Message", kind: "textarea", hint: templateHint },
    { key: "mediaUrls", label: "Picture URLs", kind: "lines", hint: "One a line, http or https." },
    fallback,
    fromNumber,
  ],
  Wait: [
    { key: "durationSeconds", label: "Seconds", kind: "number", hint: "Give seconds or a time of day, not both." },
    { key: "untilTime", label: "Until time of day", kind: "time" },
  ],
  HttpRequest: [
    { key: "url", label: "URL", kind: "url" },
    {
      key: "method",
      label: "Method",
      kind: "select",
      options: ["GET", "POST", "PUT", "PATCH", "DELETE"],
      optional: true,
    },
    { key: "headers", label: "Headers", kind: "pairs", hint: "One a line: Name: value." },
    { key: "body", label: "Body", kind: "textarea", hint: templateHint },
    { key: "secret", label: "Signing secret", kind: "text", hint: "16 characters or more; signs each request." },
    { key: "timeoutMs", label: "Timeout (ms)", kind: "number" },
    { key: "maxRetries", label: "Retries", kind: "number" },
  ],
  UpdateLead: [
    {
      key: "fields",
      label: "Fields to set",
      kind: "assignments",
      hint: "One a line: contact.firstName = Rosa; null clears a field.",
    },
  ],
  AddToSuppression: [{ key: "reason", label: "Reason", kind: "text" }],
  PlaceCall: [
    fromNumber,
    { key: "connectTo", label: "Bridge to phone", kind: "text", hint: "E.164, such as +14155550123." },
    { key: "timeoutSeconds", label: "Ring for (seconds)", kind: "number" },
  ],
  AssignLead: [{ key: "userId", label: "Assign to", kind: "person", unchosen: "By the routing rules" }],
  Stop: [],
} satisfies Record<ActionType, FieldSpec[]>;
/** In the order the type menu offers them. */
export const actionTypes = Object.keys(actionFields) as ActionType[];
