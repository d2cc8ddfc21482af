import { org, ordered, type Key } from "#core/db/keys/shared";

/** Keys of the items core/agent owns (docs/data-model.md). */
export const agentKeys = {
  /** A2A tasks of the `/a2a` agent, kept for a while (TTL) so `tasks/get` can read them back. */
  a2aTask: (organizationId: string, taskId: string): Key => ({ pk: org(organizationId), sk: `A2ATASK#${taskId}` }),
  /** gsi4: the organization's tasks by status time (ListTasks reads it newest first, as A2A 1.0 requires). */
  a2aTasksByStatusTime: (organizationId: string, statusTimestamp: string, taskId: string) => ({
    gsi4pk: `${org(organizationId)}#A2ATASKS#STATUS`,
    gsi4sk: ordered(statusTimestamp, taskId),
  }),
  a2aTasksByStatusTimePartition: (organizationId: string) => ({ gsi4pk: `${org(organizationId)}#A2ATASKS#STATUS` }),
};
