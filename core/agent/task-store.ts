import { Task, TaskState, type ListTasksRequest, type ListTasksResponse } from "@a2a-js/sdk";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { table } from "#core/db/items";
import { actorOf } from "#core/agent/caller";
import { entities, keys } from "#core/db/keys";
import { readBudget } from "#core/db/list";
import { queryCount } from "#core/db/query";
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
    await table.put({
      Item: {
        ...keys.a2aTask(organizationId, task.id),
        entity: entities.a2aTask,
        taskId: task.id,
        contextId: task.contextId,
        state: task.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED,
        statusTimestamp: task.status?.timestamp ?? now,
        task: JSON.stringify(Task.toJSON(task)),
        updatedAt: now,
        expiresAt: Math.floor(Date.now() / 1000) + taskTtlSeconds,
      },
    });
  }

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const { organizationId } = actorOf(context);
    const { Item } = await table.get({ Key: keys.a2aTask(organizationId, taskId), ConsistentRead: true });
    if (!Item || isExpired(Item)) return undefined;
    return Task.fromJSON(JSON.parse(Item.task as string));
  }

  /** The organization's tasks in task-id order, filtered by context, state and status time (A2A 1.0 `ListTasks`). */
  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const { organizationId } = actorOf(context);
    const pageSize = params.pageSize ?? 50;
    const { pk, skPrefix } = keys.a2aTaskPrefix(organizationId);
    const filters = ["expiresAt > :now"];
    const values: Record<string, unknown> = { ":pk": pk, ":prefix": skPrefix, ":now": Math.floor(Date.now() / 1000) };
    if (params.contextId) {
      filters.push("contextId = :contextId");
      values[":contextId"] = params.contextId;
    }
    if (params.status) {
      filters.push("#state = :state");
      values[":state"] = params.status;
    }
    if (params.statusTimestampAfter) {
      filters.push("statusTimestamp > :after");
      values[":after"] = params.statusTimestampAfter;
    }
    const query = {
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
      FilterExpression: filters.join(" AND "),
      ExpressionAttributeValues: values,
      ...(params.status ? { ExpressionAttributeNames: { "#state": "state" } } : {}),
    };
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined = params.pageToken
      ? { pk, sk: `${skPrefix}${Buffer.from(params.pageToken, "base64url").toString("utf8")}` }
      : undefined;
    // Bounded like every list (core/db/list.ts readBudget): a filtered page may come back short with a token.
    const budget = readBudget(pageSize);
    let read = 0;
    do {
      const page = await table.query({ ...query, ExclusiveStartKey: startKey, Limit: budget - read });
      items.push(...(page.Items ?? []));
      read += page.ScannedCount ?? page.Items?.length ?? 0;
      startKey = page.LastEvaluatedKey;
    } while (startKey && items.length <= pageSize && read < budget);
    const pageItems = items.slice(0, pageSize);
    const resumeAfter = items.length > pageSize ? String(pageItems.at(-1)!.taskId) : startKey ? String(startKey.sk).slice(skPrefix.length) : undefined;
    const nextPageToken = resumeAfter === undefined ? "" : Buffer.from(resumeAfter).toString("base64url");
    // Past the budget, totalSize is a lower bound.
    const totalSize = (await queryCount(query, budget)).count;
    const tasks = pageItems.map((item) => {
      const task = Task.fromJSON(JSON.parse(item.task as string));
      return params.includeArtifacts ? task : { ...task, artifacts: [] };
    });
    return { tasks, nextPageToken, pageSize, totalSize };
  }
}

function isExpired(item: Record<string, unknown>): boolean {
  return typeof item.expiresAt === "number" && item.expiresAt <= Math.floor(Date.now() / 1000);
}
