import { SendMessageBatchCommand, SendMessageCommand } from "@aws-sdk/client-sqs";
import * as v from "valibot";
import { config } from "#core/config";
import { currentCorrelationId } from "#core/observability/index";
import { sqs } from "#core/queue/client";
import { newId, nowIso } from "#core/shared/ids";
import type { QueueName } from "#stacks/definitions";

/**
 * Messages between domains travel as one envelope: a past-tense `type`, the
 * organization, a unique `id` consumers use for idempotency, and `data`.
 * Each domain declares its messages with `defineMessage` (the type, the one
 * queue it travels on, the valibot schema of its data) and names them in the
 * type-level catalogue by augmenting `QueueMessages`:
 *
 *   export const LeadReceived = defineMessage("lead.received", "leadIntake", v.object({ leadId: v.string() }));
 *   declare module "#core/queue/messages" { interface QueueMessages { "lead.received": typeof LeadReceived } }
 *
 * `publish` takes the queue from the declaration (a message cannot go to the
 * wrong queue) and `subscribe` validates each record's data against it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface QueueMessages {}

export type QueueMessageType = keyof QueueMessages & string;

export interface MessageDefinition<
  TType extends string = string,
  TQueue extends QueueName = QueueName,
  TSchema extends v.GenericSchema = v.GenericSchema,
> {
  readonly type: TType;
  readonly queue: TQueue;
  readonly schema: TSchema;
}

/** The data of a declared message type, as its schema outputs it. */
export type MessageData<TType extends QueueMessageType> =
  QueueMessages[TType] extends MessageDefinition<string, QueueName, infer TSchema> ? v.InferOutput<TSchema> : never;

/** The queue a declared message type travels on. */
export type QueueOfMessage<TType extends QueueMessageType> =
  QueueMessages[TType] extends MessageDefinition<string, infer TQueue> ? TQueue : never;

const declared = new Map<string, MessageDefinition>();

/** Declares a message type: the queue it travels on and the schema of its data (registered for `subscribe` and the tests). */
export function defineMessage<
  const TType extends string,
  const TQueue extends QueueName,
  TSchema extends v.GenericSchema,
>(type: TType, queue: TQueue, schema: TSchema): MessageDefinition<TType, TQueue, TSchema> {
  const definition = { type, queue, schema };
  // One declaration per type: two would let publisher and consumer disagree on the queue or the data.
  if (declared.has(type)) throw new Error(`Message type ${type} is declared twice.`);
  declared.set(type, definition);
  return definition;
}

/** The declaration of a message type, once its domain module is loaded. */
export function messageDefinition(type: string): MessageDefinition | undefined {
  return declared.get(type);
}

/** Every message type declared by the modules loaded so far. */
export function declaredMessages(): MessageDefinition[] {
  return [...declared.values()];
}

export interface Envelope<TType extends QueueMessageType = QueueMessageType> {
  id: string;
  type: TType;
  organizationId: string;
  occurredAt: string;
  /** The journey this message belongs to: the originating request's id, passed on by every consumer (core/observability). */
  correlationId?: string;
  data: MessageData<TType>;
}

type DefinitionOf<TType extends QueueMessageType> = MessageDefinition<TType, QueueOfMessage<TType>>;

/** Shape check of an envelope read from a queue (the data is checked by the consumer's own schema). */
export const EnvelopeSchema = v.object({
  id: v.string(),
  type: v.string(),
  organizationId: v.string(),
  occurredAt: v.string(),
  correlationId: v.optional(v.string()),
  data: v.unknown(),
});

/** SQS accepts at most 15 minutes of delay; later work goes through the due index. */
export const maxDelaySeconds = 900;

export interface PublishOptions {
  delaySeconds?: number;
  /** Reuse an id to make a re-publish recognisable to the consumer (idempotency). */
  id?: string;
}

export function envelope<TType extends QueueMessageType>(
  message: DefinitionOf<TType>,
  organizationId: string,
  data: MessageData<TType>,
  id: string = newId(),
): Envelope<TType> {
  return {
    id,
    type: message.type,
    organizationId,
    occurredAt: nowIso(),
    correlationId: currentCorrelationId() ?? id,
    data,
  };
}

/** Sends one message; resolves once SQS has stored it. */
export async function publish<TType extends QueueMessageType>(
  declaration: DefinitionOf<TType>,
  organizationId: string,
  data: MessageData<TType>,
  options: PublishOptions = {},
): Promise<Envelope<TType>> {
  const queue = declaration.queue;
  const message = envelope(declaration, organizationId, data, options.id);
  const client = await sqs();
  await client.send(
    new SendMessageCommand({
      QueueUrl: config.queueUrl(queue),
      MessageBody: messageBody(message),
      DelaySeconds: clampDelay(options.delaySeconds),
    }),
  );
  return message;
}

/** Sends many messages (each to its declared queue), ten per SQS call; throws if any entry was not stored. */
export async function publishAll(messages: { envelope: Envelope; delaySeconds?: number }[]): Promise<void> {
  const byQueue = new Map<QueueName, { envelope: Envelope; delaySeconds?: number }[]>();
  for (const entry of messages) {
    const queue = messageDefinition(entry.envelope.type)?.queue;
    if (!queue) throw new Error(`Message type ${entry.envelope.type} is not declared.`);
    (byQueue.get(queue) ?? byQueue.set(queue, []).get(queue)!).push(entry);
  }
  for (const [queue, entries] of byQueue) await sendBatches(queue, entries);
}

async function sendBatches(queue: QueueName, messages: { envelope: Envelope; delaySeconds?: number }[]): Promise<void> {
  const client = await sqs();
  for (let start = 0; start < messages.length; start += 10) {
    const chunk = messages.slice(start, start + 10);
    const result = await client.send(
      new SendMessageBatchCommand({
        QueueUrl: config.queueUrl(queue),
        Entries: chunk.map((entry, index) => ({
          Id: String(index),
          MessageBody: messageBody(entry.envelope),
          DelaySeconds: clampDelay(entry.delaySeconds),
        })),
      }),
    );
    if (result.Failed?.length)
      throw new Error(`SQS refused ${result.Failed.length} message(s): ${result.Failed[0]?.Message}`);
  }
}

/**
 * The JSON of an envelope with characters outside the Basic Multilingual Plane
 * (emoji in a lead's name or an SMS body) written as \u escapes: the same JSON
 * value, in the character range every SQS implementation accepts (the local
 * emulator refuses astral characters in message bodies).
 */
function messageBody(envelope: Envelope): string {
  return JSON.stringify(envelope).replace(/[\u{10000}-\u{10FFFF}]/gu, (character) =>
    Array.from(
      { length: character.length },
      (_, index) => `\\u${character.charCodeAt(index).toString(16).padStart(4, "0")}`,
    ).join(""),
  );
}

function clampDelay(delaySeconds: number | undefined): number | undefined {
  if (delaySeconds === undefined) return undefined;
  return Math.max(0, Math.min(maxDelaySeconds, Math.ceil(delaySeconds)));
}
