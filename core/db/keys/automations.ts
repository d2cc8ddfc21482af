import { org, ownPartition, type Key } from "#core/db/keys/shared";

/** Keys of the items core/automations owns (docs/data-model.md). */
export const automationsKeys = {
  /**
   * An automation, in a partition of its own (issue 27: every run it ends notes its last run on it, a write a lead
   * the organization's partition could not carry); listed from the Automation entity's creation index.
   */
  automation: (organizationId: string, automationId: string): Key =>
    ownPartition(organizationId, `AUTOMATION#${automationId}`),
  /** The definition a run executes: one immutable copy per automation version, written when a run first needs it. */
  automationVersion: (organizationId: string, automationId: string, version: number): Key => ({
    pk: org(organizationId),
    sk: `AUTOVERSION#${automationId}#${String(version).padStart(8, "0")}`,
  }),
  /**
   * Index of enabled triggers by type (fan-out reads `AUTOTRIGGER#<type>#`), written with the automation; a Schedule
   * trigger's entry in the due index is declared with its entity (core/db/entities/automations.ts).
   */
  automationTrigger: (organizationId: string, triggerType: string, automationId: string, triggerId: string): Key => ({
    pk: org(organizationId),
    sk: `AUTOTRIGGER#${triggerType}#${automationId}#${triggerId}`,
  }),
  automationTriggerPrefix: (organizationId: string, triggerType: string) => ({
    pk: org(organizationId),
    skPrefix: `AUTOTRIGGER#${triggerType}#`,
  }),
  /**
   * Automation runs, each in a partition of its own (issue 27: ~21 write units a lead, rewritten at every step);
   * their index keys (an automation's runs, the organization's, the active ones, the due one) are declared with the run entity
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
};
