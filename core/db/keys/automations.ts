import { org, ownPartition, type Key } from "#core/db/keys/shared";

/** Keys of the items core/automations owns (docs/data-model.md). */
export const automationsKeys = {
  automation: (organizationId: string, automationId: string): Key => ({
    pk: org(organizationId),
    sk: `AUTOMATION#${automationId}`,
  }),
  automationPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "AUTOMATION#" }),
  /** The definition a run executes: one immutable copy per automation version, written when a run first needs it. */
  automationVersion: (organizationId: string, automationId: string, version: number): Key => ({
    pk: org(organizationId),
    sk: `AUTOVERSION#${automationId}#${String(version).padStart(8, "0")}`,
  }),
  /** Index of enabled triggers by type (fan-out reads `AUTOTRIGGER#<type>#`), written with the automation. */
  automationTrigger: (organizationId: string, triggerType: string, automationId: string, triggerId: string): Key => ({
    pk: org(organizationId),
    sk: `AUTOTRIGGER#${triggerType}#${automationId}#${triggerId}`,
  }),
  automationTriggerPrefix: (organizationId: string, triggerType: string) => ({
    pk: org(organizationId),
    skPrefix: `AUTOTRIGGER#${triggerType}#`,
  }),
  /**
   * gsi3 (sparse): Schedule triggers by their next firing. Not tenant data: the
   * sweeper's operator index across organizations, sharded by automation id.
   */
  dueSchedule: (shard: number, dueAt: string, organizationId: string, automationId: string, triggerId: string) => ({
    gsi3pk: `DUESCHEDULES#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${automationId}#${triggerId}`,
  }),
  /**
   * Automation runs, each in a partition of its own (issue 27: ~21 write units a lead, rewritten at every step);
   * their index keys (an automation's runs, the organization's, the active ones) are declared with the run entity
   * (core/db/entities/automations.ts).
   */
  automationRun: (organizationId: string, automationId: string, runId: string): Key =>
    ownPartition(organizationId, `RUN#${automationId}#${runId}`),
  /**
   * One run per (automation, trigger event): claimed with a conditional put before the run's own, in a partition of
   * its own as its run.
   */
  automationRunClaim: (organizationId: string, automationId: string, triggerEventId: string): Key =>
    ownPartition(organizationId, `RUNKEY#${automationId}#${triggerEventId}`),
  /**
   * gsi3 (sparse): unfinished runs by when they need attention (a wait ending, or a
   * stalled step to resend). Operator index across organizations, sharded by run id.
   */
  dueRun: (shard: number, dueAt: string, organizationId: string, automationId: string, runId: string) => ({
    gsi3pk: `DUERUNS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${automationId}#${runId}`,
  }),
};
