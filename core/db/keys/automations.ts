import { org, type Key } from "#core/db/keys/shared";

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
  /** Automation runs: one automation's runs, newest first by ULID. */
  automationRun: (organizationId: string, automationId: string, runId: string): Key => ({
    pk: org(organizationId),
    sk: `RUN#${automationId}#${runId}`,
  }),
  automationRunPrefix: (organizationId: string, automationId: string) => ({
    pk: org(organizationId),
    skPrefix: `RUN#${automationId}#`,
  }),
  /** One run per (automation, trigger event): claimed with a conditional put in the run's own transaction. */
  automationRunClaim: (organizationId: string, automationId: string, triggerEventId: string): Key => ({
    pk: org(organizationId),
    sk: `RUNKEY#${automationId}#${triggerEventId}`,
  }),
  /** gsi1: every run of the organization by creation time (analytics automationHealth). */
  runsByOrganization: (organizationId: string, createdAt = "", runId = "") => ({
    gsi1pk: `${org(organizationId)}#RUNS`,
    gsi1sk: createdAt ? `${createdAt}#${runId}` : "",
  }),
  /** gsi2 (sparse): the unfinished runs of one automation (disabling cancels them); removed when a run ends. */
  activeRunsByAutomation: (organizationId: string, automationId: string, runId = "") => ({
    gsi2pk: `${org(organizationId)}#AUTOMATION#${automationId}#ACTIVERUNS`,
    gsi2sk: `RUN#${runId}`,
  }),
  /**
   * gsi3 (sparse): unfinished runs by when they need attention (a wait ending, or a
   * stalled step to resend). Operator index across organizations, sharded by run id.
   */
  dueRun: (shard: number, dueAt: string, organizationId: string, automationId: string, runId: string) => ({
    gsi3pk: `DUERUNS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${automationId}#${runId}`,
  }),
};
