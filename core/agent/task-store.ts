import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { table } from "#core/db/items";
import { actorOf } from "#core/agent/caller";
import { A2ATaskEntity } from "#core/db/entities/agent";
import { queryCount, readBudget } from "#core/db/query";
import { nowIso } from "#core/shared/ids";

/** How long a task stays readable through `tasks/get` (DynamoDB TTL; expired items are ignored before deletion). */
export const taskTtlSeconds = 7 * 24 * 60 * 60;

/**
 * A2A tasks in the single table, under the caller's organization
 * (`ORG#<org>` / `A2ATASK#<taskId>`). The organization comes from the Actor the
 * HTTP chain authenticated, never from the request, so another organization's
 * task id is simply not found. Any credential of the organization may read a
 * task (tasks are organization work, like automations).
 *
 * The task is stored as its protobuf-JSON string: it round-trips every part
 * type unchanged and keeps DynamoDB's attribute rules out of the way.
 */
export class DynamoTaskStore implements TaskStore {
  async save(task: Task, context: ServerCallContext): Promise<void> {
    const { organizationId } = actorOf(context);
    const now = nowIso();
    const statusTimestamp = task.status?.timestamp ?? now;
    await table.put(
      A2ATaskEntity.putAt(
        { organizationId, taskId: task.id },
        {
          taskId: task.id,
          contextId: task.contextId,
          state: task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED,
          statusTimestamp,
          task: JSON.stringify(Task.toJSON(task)),
          updatedAt: now,
          expiresAt: Math.floor(Date.now() / 1000) + taskTtlSeconds,
        },
      ),
    );
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const { organizationId } = actorOf(context);
    const Item = await A2ATaskEntity.get({ organizationId, taskId }, { consistent: true });
    if (!Item || isExpired(Item)) return undefined;
    return Task.fromJSON(JSON.parse(Item.task as string));
  }

  /**
   * The organization's tasks, most recently updated first (A2A 1.0 ListTasks), filtered by context, state and status
   * time, from its status-time index (status time, then id). `pageSize` answers how many tasks this page holds, as the A2A conformance
   * suite reads it (docs/decisions.md).
   */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { organizationId } = actorOf(context);
    const pageSize = params.pageSize ?? defaultPageSize;
    const now = Math.floor(Date.now() / 1000);
    const where = (item: Record<string, unknown>) =>
      !isExpired(item, now) &&
      (!params.contextId || item.contextId === params.contextId) &&
      (!params.status || item.state === params.status);
    const after = params.statusTimestampAfter ? new Date(params.statusTimestampAfter).toISOString() : undefined;
    const query = A2ATaskEntity.queryPartition(
      "byStatusTime",
      { organizationId },
      { ...(after ? { range: { atLeast: after } } : {}), forward: false, where },
    );
    const cursor = params.pageToken ? cursorOf(params.pageToken) : undefined;
    let startKey: Record<string, unknown> | undefined =
      cursor && A2ATaskEntity.positionOf("byStatusTime", { organizationId, ...cursor });
    // Bounded like every list (core/db/query.ts readBudget): a filtered page may come back short with a token.
    const budget = readBudget(pageSize);
    const items: Record<string, unknown>[] = [];
    let read = 0;
    do {
      const limit = Math.min(budget - read, pageSize + 1 - items.length);
      const page = await table.query({ ...query, ExclusiveStartKey: startKey, Limit: limit });
      items.push(...(page.Items ?? []));
      read += page.ScannedCount ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey && items.length <= pageSize && read < budget);
    const pageItems = items.slice(0, pageSize);
    const last = items.length > pageSize ? pageItems.at(-1) : startKey;
    const resumeAfter = last && A2ATaskEntity.indexPosition("byStatusTime", last);
    const nextPageToken = resumeAfter === undefined ? "" : Buffer.from(String(resumeAfter)).toString("base64url");
    // Past the budget, totalSize is a lower bound.
    const totalSize = (await queryCount(query, budget)).count;
    const tasks = pageItems.map((item) => {
      const task = Task.fromJSON(JSON.parse(item.task as string));
      return params.includeArtifacts ? task : { ...task, artifacts: [] };
    });
    return { tasks, nextPageToken, pageSize: tasks.length, totalSize };
  }
}

/** ListTasks pages of 50 unless asked otherwise (A2A 1.0). */
export const defaultPageSize = 50;

/** Status times as tasks carry them (`Date.prototype.toISOString`). */
const storedTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The position a page token names: the status time and id of the last task of the previous page. */
function cursorOf(pageToken: string): { statusTimestamp: string; taskId: string } {
  const [statusTimestamp, taskId, ...rest] = Buffer.from(pageToken, "base64url").toString("utf8").split("\u0000");
  if (!statusTimestamp || !taskId || rest.length > 0 || !storedTimestamp.test(statusTimestamp)) {
    throw new RequestMalformedError("pageToken is not a token a previous ListTasks answered.");
  }
  return { statusTimestamp, taskId };
}

function isExpired(item: Record<string, unknown>, now = Math.floor(Date.now() / 1000)): boolean {
  return typeof item.expiresAt === "number" && item.expiresAt <= now;
}
