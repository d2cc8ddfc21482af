import * as v from "valibot";
import { timestamp, wholeNumber } from "#core/shared/ids";
import { RunStatusSchema, type RunStatus } from "#core/automations/definition/values";

/** Status of one step of a run; `Blocked` is a send the messaging pipeline refused (compliance or billing). */
export const stepStatuses = [
  "Pending",
  "Running",
  "Waiting",
  "Succeeded",
  "Failed",
  "Blocked",
  "Skipped",
  "Canceled",
] as const;
export type StepStatus = (typeof stepStatuses)[number];

/** Run statuses after which nothing more happens (a Failed run may still be retried by a person). */
export const finalRunStatuses: readonly RunStatus[] = ["Succeeded", "Failed", "Skipped", "Canceled"];

const nullableString = v.nullable(v.string());

export const RunStepSchema = v.object({
  seq: wholeNumber,
  nodeId: v.string(),
  kind: v.picklist(["Trigger", "ConditionGroup", "Action"]),
  type: v.string(),
  status: v.picklist(stepStatuses),
  attempts: wholeNumber,
  input: v.nullable(v.record(v.string(), v.unknown())),
  output: v.nullable(v.record(v.string(), v.unknown())),
  error: nullableString,
  startedAt: v.nullable(timestamp),
  finishedAt: v.nullable(timestamp),
  durationMs: v.nullable(wholeNumber),
});
export type RunStep = v.InferOutput<typeof RunStepSchema>;

/** An automation run as `GET /automations/{id}/runs/{runId}` answers it. */
export const AutomationRunSchema = v.object({
  id: v.string(),
  automationId: v.string(),
  automationName: v.string(),
  /** The definition version the run executes from start to end, whatever edits happen meanwhile. */
  automationVersion: wholeNumber,
  organizationId: v.string(),
  status: RunStatusSchema,
  trigger: v.object({
    nodeId: v.string(),
    type: v.string(),
    eventId: v.string(),
    eventType: v.string(),
    data: v.record(v.string(), v.unknown()),
  }),
  leadId: nullableString,
  /** Node ids in the order the run visited them: trigger, condition groups passed, actions. */
  path: v.array(v.string()),
  currentNodeId: nullableString,
  waitingUntil: nullableString,
  steps: v.array(RunStepSchema),
  error: nullableString,
  retryCount: wholeNumber,
  createdAt: timestamp,
  finishedAt: v.nullable(timestamp),
  modifiedAt: timestamp,
});
export type AutomationRun = v.InferOutput<typeof AutomationRunSchema>;

/** The stored run: the response plus the engine's cursor (private to core). */
export interface StoredRun extends AutomationRun {
  /** Index in `steps` of the step being executed; -1 when the run has ended. */
  cursorSeq: number;
  /** Attempt of that step (HttpRequest retries and send observations reuse the step). */
  cursorAttempt: number;
  /** Id of the side effect of the current step (message id), fixed before it is created. */
  effectId: string | null;
  /** A step is executed by whoever holds the lease; an expired lease may be taken over. */
  leaseToken: string | null;
  leaseUntil: string | null;
  /** Optimistic concurrency: every write checks and increments it. */
  rev: number;
  /** When the sweep should resend the step (a retry or observation); otherwise derived from the status. */
  dueAt?: string | null;
}

/** Body of `POST /automations/{id}/runs`: a manual run for one lead (the test button). */
export const StartRunSchema = v.strictObject({
  leadId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  /** Which trigger the run starts from; default: the Manual trigger, else the first enabled trigger. */
  triggerId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});
export type StartRunRequest = v.InferOutput<typeof StartRunSchema>;

export const RunParamsSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  runId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
});

/** Event types an automation run records when it ends. */
export type AutomationEventType =
  | "AutomationRunSucceeded"
  | "AutomationRunFailed"
  | "AutomationRunSkipped"
  | "AutomationRunCanceled"
  | "AutomationRunEnded";
