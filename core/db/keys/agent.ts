import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/agent owns (docs/data-model.md). */
export const agentKeys = {
  /** A2A tasks of the `/a2a` agent, kept for a while (TTL) so `tasks/get` can read them back. */
  a2aTask: (organizationId: string, taskId: string): Key => ({ pk: org(organizationId), sk: `A2ATASK#${taskId}` }),
};
