import * as v from "valibot";

/** Where an automation applies: every lead of the organization, or only leads of given sources / phone numbers. */
export const automationScopes = ["Organization", "Source", "PhoneNumber"] as const;
/** Who can see an automation: everyone in the organization, or only its creator (and owners/admins). */
export const automationVisibilities = ["Organization", "Private"] as const;
/** Who owns the setting: the organization edits it freely; the service owns `System` ones (enable/disable only). */
export const managementLevels = ["Organization", "System"] as const;
/** How a condition group combines its enabled conditions. */
export const conditionGroupModes = ["all", "any"] as const;

export const triggerTypes = [
  "LeadCreated",
  "MessageReceived",
  "MessageFailed",
  "CallMissed",
  "LeadOptedOut",
  "Schedule",
  "Manual",
] as const;

export const conditionTypes = [
  "LeadField",
  "TimeOfDay",
  "Weekday",
  "LeadAge",
  "HasReplied",
  "ConsentStatus",
  "Assignee",
] as const;

export const conditionOperators = [
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
  "Between",
  "NotBetween",
] as const;

export const actionTypes = [
  "SendSms",
  "SendMms",
  "Wait",
  "HttpRequest",
  "UpdateLead",
  "AddToSuppression",
  "PlaceCall",
  "AssignLead",
  "Stop",
] as const;

/** Status of an automation run, and of the automation's `lastRunStatus`. */
export const runStatuses = ["Pending", "Running", "Waiting", "Succeeded", "Failed", "Skipped", "Canceled"] as const;

export const weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

/** Values of a lead's `metadata.smsConsentStatus` that the ConsentStatus condition compares against. */
export const consentStatuses = ["OptedIn", "OptedOut", "Unverified", "Unknown"] as const;

/** Delivery outcomes the MessageFailed trigger reacts to. */
export const messageFailureStatuses = ["Failed", "Undeliverable"] as const;

/** Which replies the HasReplied condition counts: since the run started, or since the lead was created. */
export const replyWindows = ["RunStarted", "LeadCreated"] as const;

/** HTTP methods of the HttpRequest action (upper case, as HTTP spells them). */
export const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

export type AutomationScope = (typeof automationScopes)[number];
export type AutomationVisibility = (typeof automationVisibilities)[number];
export type ManagementLevel = (typeof managementLevels)[number];
export type ConditionGroupMode = (typeof conditionGroupModes)[number];
export type TriggerType = (typeof triggerTypes)[number];
export type ConditionType = (typeof conditionTypes)[number];
export type ConditionOperator = (typeof conditionOperators)[number];
export type ActionType = (typeof actionTypes)[number];
export type RunStatus = (typeof runStatuses)[number];
export type Weekday = (typeof weekdays)[number];
export type ConsentStatus = (typeof consentStatuses)[number];

export const AutomationScopeSchema = v.picklist(automationScopes);
export const AutomationVisibilitySchema = v.picklist(automationVisibilities);
export const ManagementLevelSchema = v.picklist(managementLevels);
export const ConditionGroupModeSchema = v.picklist(conditionGroupModes);
export const TriggerTypeSchema = v.picklist(triggerTypes);
export const ConditionTypeSchema = v.picklist(conditionTypes);
export const ConditionOperatorSchema = v.picklist(conditionOperators);
export const ActionTypeSchema = v.picklist(actionTypes);
export const RunStatusSchema = v.picklist(runStatuses);
export const WeekdaySchema = v.picklist(weekdays);
export const ConsentStatusSchema = v.picklist(consentStatuses);

/** Size limits of one automation (it is stored as one DynamoDB item, 400 KB at most). */
export const automationLimits = {
  nameLength: 255,
  descriptionLength: 2000,
  nodeIdLength: 64,
  triggers: 20,
  conditionGroups: 50,
  conditionsPerGroup: 20,
  actions: 100,
  connections: 300,
  messageBodyLength: 1600,
  httpBodyLength: 10_000,
  httpHeaders: 20,
  mmsMedia: 10,
  inValues: 100,
  updateLeadFields: 50,
  maxWaitSeconds: 90 * 24 * 3600,
} as const;
