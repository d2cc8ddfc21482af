import { defineEntity } from "#core/db/entity";
import { ordered, org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/agent owns (docs/data-model.md). */
export const agentKeys = {
  /** A2A tasks of the `/a2a` agent, kept for a while (TTL) so `tasks/get` can read them back. */
  a2aTask: (organizationId: string, taskId: string): Key => ({ pk: org(organizationId), sk: `A2ATASK#${taskId}` }),
};

/** An A2A task as stored: the item holds its id and status time, not its organization (its key says it). */
export type StoredA2ATask = { organizationId: string; taskId: string; statusTimestamp: string } & Record<
  string,
  unknown
>;

/**
 * The A2ATask entity (docs/data-model.md): one item per task under the caller's organization, holding the task as
 * its protobuf-JSON string, kept a week (`expiresAt`, DynamoDB TTL).
 */
export const A2ATaskEntity = defineEntity({
  name: "A2ATask",
  attributes: [],
  key: ({ organizationId, taskId }: { organizationId: string; taskId: string }) =>
    agentKeys.a2aTask(organizationId, taskId),
  identity: ({ organizationId, taskId }: StoredA2ATask) => ({ organizationId, taskId }),
  indexes: {
    /** The organization's tasks by status time, then id (ListTasks reads it newest first, as A2A 1.0 requires). */
    byStatusTime: {
      index: "sortedByField",
      pk: (task: StoredA2ATask) => `${org(task.organizationId)}#A2ATASKS#STATUS`,
      sk: (task: StoredA2ATask) => (task.statusTimestamp ? ordered(task.statusTimestamp, task.taskId) : ""),
      composites: ["statusTimestamp"],
    },
  },
});
