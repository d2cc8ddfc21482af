import { randomUUID } from "node:crypto";
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import * as v from "valibot";
import { actorOf } from "#core/agent/caller";
import { agentSkills, type AgentSkillId } from "#core/agent/card";
import { selectSkill } from "#core/agent/select";
import { loadSkill, type SkillResult } from "#core/agent/skills/index";
import type { Actor } from "#core/auth/actor";
import { DomainError, UnreadableItemError, ValidationError, asPointers } from "#core/errors";
import { nowIso } from "#core/shared/ids";
import { toFieldErrors } from "#core/shared/validation";

/** How a skill run ended: completed with a result, or rejected/failed with an error for the data part. */
type Outcome =
  | { state: TaskState.TASK_STATE_COMPLETED; result: SkillResult }
  | {
      state: TaskState.TASK_STATE_REJECTED | TaskState.TASK_STATE_FAILED;
      text: string;
      error: Record<string, unknown>;
    };

/**
 * Runs one skill per message, synchronously, for the Actor the HTTP chain
 * authenticated. Every skill message becomes a task that ends in one event:
 * completed (artifact with a text and a data part), rejected (missing
 * permission, invalid input) or failed (the domain refused, e.g. an unknown
 * lead or an empty wallet, or an unexpected error). A message naming no known skill gets
 * a task too, left input-required with the list of skills: the caller answers on the same
 * task (or cancels it), and like every task it can be read, listed and subscribed to.
 */
export class LeadAgentExecutor implements AgentExecutor {
  async execute(context: RequestContext, eventBus: ExecutionEventBus): Promise<void> {
    const actor = actorOf(context.context);
    const selection = await selectSkill(context.userMessage, context.request.metadata);
    if (selection.kind === "unknown") {
      eventBus.publish(AgentEvent.task(inputRequiredTask(context, selection.requested)));
      return;
    }
    const outcome = await runSkill(actor, selection.skillId, selection.input);
    eventBus.publish(AgentEvent.task(toTask(context, selection.skillId, outcome)));
  }

  /**
   * Skills finish within the request, so no execution is ever running when a cancel arrives: the SDK cancels a task
   * that waits for input itself (no event bus), and refuses a finished one. This stays for an execution in flight.
   */
  async cancelTask(taskId: string, eventBus: ExecutionEventBus): Promise<void> {
    eventBus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: "",
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: nowIso() },
        metadata: undefined,
      }),
    );
  }
}

async function runSkill(actor: Actor, skillId: AgentSkillId, rawInput: unknown): Promise<Outcome> {
  const skill = await loadSkill(skillId);
  const missing = skill.permissions.filter((permission) => !actor.permissions.has(permission));
  if (missing.length > 0) {
    return rejected(
      `This credential cannot use ${skillId}: it needs the ${missing.map((p) => `'${p}'`).join(" and ")} permission.`,
      {
        code: "forbidden",
        missingPermissions: missing,
      },
    );
  }
  const parsed = v.safeParse(skill.input, rawInput ?? {});
  if (!parsed.success) {
    const errors = toFieldErrors(parsed.issues);
    return rejected(`I could not run ${skillId}: ${errors.map((e) => e.detail).join(" ")}`, {
      code: "validation_failed",
      errors,
    });
  }
  try {
    return { state: TaskState.TASK_STATE_COMPLETED, result: await skill.run(actor, parsed.output) };
  } catch (error) {
    if (error instanceof ValidationError)
      return rejected(error.message, { code: error.code, errors: asPointers(error.errors) });
    // An item that cannot be read is a fault of ours, logged with a correlation id below like any other.
    if (error instanceof DomainError && !(error instanceof UnreadableItemError)) {
      return { state: TaskState.TASK_STATE_FAILED, text: error.message, error: { code: error.code } };
    }
    const correlationId = randomUUID();
    const failure = error as Error;
    console.error(
      JSON.stringify({ level: "error", correlationId, skillId, message: failure?.message, stack: failure?.stack }),
    );
    return {
      state: TaskState.TASK_STATE_FAILED,
      text: `The ${skillId} skill failed unexpectedly. Quote correlation id ${correlationId} when reporting this.`,
      error: { code: "internal_error", correlationId },
    };
  }
}

function rejected(text: string, error: Record<string, unknown>): Outcome {
  return { state: TaskState.TASK_STATE_REJECTED, text, error };
}

function toTask(context: RequestContext, skillId: AgentSkillId, outcome: Outcome): Task {
  const completed = outcome.state === TaskState.TASK_STATE_COMPLETED;
  const text = completed ? outcome.result.text : outcome.text;
  const statusParts = completed
    ? [textPart(text)]
    : [textPart(text), dataPart({ skill: skillId, error: outcome.error })];
  const artifacts: Artifact[] = completed
    ? [
        {
          artifactId: randomUUID(),
          name: skillId,
          description: agentSkills.find((skill) => skill.id === skillId)?.name ?? skillId,
          parts: [textPart(text), dataPart(outcome.result.data)],
          metadata: undefined,
          extensions: [],
        },
      ]
    : [];
  return {
    id: context.taskId,
    contextId: context.contextId,
    status: { state: outcome.state, message: agentMessage(context, statusParts), timestamp: nowIso() },
    artifacts,
    history: historyWith(context),
    metadata: { skill: skillId },
  };
}

/**
 * The task's conversation so far, this message last: on a task that was waiting for input, the agent's question
 * (its status message until now) goes into the history before the answer, as A2A moves a superseded status message.
 */
function historyWith(context: RequestContext): Message[] {
  // The SDK has already added this message to a continued task's history: it goes last here, once.
  const prior = (context.task?.history ?? []).filter((message) => message.messageId !== context.userMessage.messageId);
  const question = context.task?.status?.message;
  const asked = question && !prior.some((message) => message.messageId === question.messageId) ? [question] : [];
  return [...prior, ...asked, context.userMessage];
}

/** A message naming no skill we have: the task waits for the caller to pick one (the status message lists them). */
function inputRequiredTask(context: RequestContext, requested: string | undefined): Task {
  return {
    id: context.taskId,
    contextId: context.contextId,
    status: {
      state: TaskState.TASK_STATE_INPUT_REQUIRED,
      message: unknownSkillMessage(context, requested),
      timestamp: nowIso(),
    },
    artifacts: [],
    history: historyWith(context),
    metadata: undefined,
  };
}

function unknownSkillMessage(context: RequestContext, requested: string | undefined): Message {
  const list = agentSkills.map((skill) => `${skill.id} (${skill.name})`).join(", ");
  const text = requested
    ? `I have no skill called "${requested}". Available skills: ${list}.`
    : `I could not tell which skill you want. Available skills: ${list}. Name one in a data part { "skill": id, "input": {...} } or ask in words, for example "${agentSkills[0].examples[0]}".`;
  const data = {
    error: { code: "unknown_skill", ...(requested ? { requested } : {}) },
    availableSkills: agentSkills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description })),
  };
  return agentMessage(context, [textPart(text), dataPart(data)]);
}

function agentMessage(context: RequestContext, parts: Part[]): Message {
  return {
    messageId: randomUUID(),
    contextId: context.contextId,
    taskId: context.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

function dataPart(data: Record<string, unknown>): Part {
  return { content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "application/json" };
}
