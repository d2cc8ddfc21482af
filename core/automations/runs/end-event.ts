/** The event record an ended run writes (spec 2.5), with an id fixed by the run so a repeat is refused. */
import { type AutomationEventType } from "#core/automations/runs/model";
import { type EventRecordInput } from "#core/events/index";
import { ulid } from "ulid";
import "#core/automations/runs/queue";
import type { StoredRun } from "#core/automations/runs/model";

export const endEventTypes: Partial<Record<StoredRun["status"], AutomationEventType>> = {
  Succeeded: "AutomationRunSucceeded",
  Failed: "AutomationRunFailed",
  Skipped: "AutomationRunSkipped",
  Canceled: "AutomationRunCanceled",
};

/** The event record of an ended run (spec 2.5), with an id fixed by the run so a repeated write is refused. */
export function endEvent(run: StoredRun): EventRecordInput {
  const at = run.finishedAt ?? run.modifiedAt;
  const seed = Buffer.from(run.id);
  let index = 0;
  const id = ulid(Date.parse(at), () => (seed[index++ % seed.length]! % 32) / 32);
  const failed = run.steps.findLast((step) => step.status === "Failed" || step.status === "Blocked");
  const outcome =
    run.status === "Failed"
      ? ` failed${failed ? ` at ${failed.nodeId} (${failed.type})` : ""}: ${run.error ?? "unknown error"}`
      : ` ended ${run.status}${run.error ? `: ${run.error}` : "."}`;
  return {
    id,
    createdAt: at,
    eventType: endEventTypes[run.status] ?? "AutomationRunEnded",
    eventCategory: "Automation",
    timelineCategory: "Automation",
    description: `Automation "${run.automationName}"${outcome}`,
    summary: run.path.join(" → "),
    ...(run.leadId ? { leadId: run.leadId } : {}),
    relatedEntityType: "AutomationRun",
    relatedEntityId: run.id,
    status: run.status,
    ...(run.error ? { statusReason: run.error } : {}),
    ...(typeof failed?.output?.billingStatus === "string" ? { billingStatus: failed.output.billingStatus } : {}),
    ...(typeof failed?.output?.complianceAction === "string"
      ? { complianceAction: failed.output.complianceAction }
      : {}),
    ...(typeof failed?.output?.errorCode === "string" ? { errorCode: failed.output.errorCode } : {}),
    retryCount: run.retryCount,
    campaignId: `automation:${run.automationId}`,
    createdBy: `automation:${run.automationId}`,
    actorDisplayName: `Automation ${run.automationName}`,
  };
}
