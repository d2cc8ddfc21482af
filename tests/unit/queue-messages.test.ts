import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { LeadReceived } from "#core/leads/queue";
import { MessageSend } from "#core/messaging/queue";
import { declaredMessages, messageDefinition, publish, type Envelope } from "#core/queue/messages";
import { subscribe } from "#core/queue/subscribe";
import { consumers, queues, streamConsumers } from "#stacks/definitions";

/**
 * Typed messages bound to queues (issue 10): every message type is declared
 * with a schema and the queue it travels on; every queue's consumer serves
 * each type declared for it, through `subscribe`, which refuses a record
 * whose data does not match the declaration.
 */

const root = path.resolve(import.meta.dirname, "../..");

function queueModules(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return queueModules(full);
    return name === "queue.ts" ? [full] : [];
  });
}

type Consumer = ((event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>) & {
  queue: string;
  messageTypes: string[];
};

async function loadConsumers(): Promise<Consumer[]> {
  return Promise.all(
    consumers.map(async (definition) => {
      const [file, exportName] = definition.handler.split(".");
      const module = (await import(path.join(root, `${file}.ts`))) as Record<string, Consumer>;
      return module[exportName!]!;
    }),
  );
}

describe("queue messages", () => {
  it("declares every message type with a schema and an existing queue", async () => {
    for (const file of queueModules(path.join(root, "core"))) await import(file);
    const declared = declaredMessages();
    expect(declared.map((message) => message.type).sort()).toEqual([
      "automation.disabled",
      "automation.scheduled",
      "automation.step",
      "call.missed",
      "call.place",
      "lead.created",
      "lead.optedOut",
      "lead.received",
      "message.failed",
      "message.received",
      "message.send",
      "webhook.deliver",
    ]);
    for (const message of declared) {
      expect(Object.keys(queues), message.type).toContain(message.queue);
      expect(message.schema.kind, message.type).toBe("schema");
    }
  });

  it("gives every declared message type a consumer on its queue, built by subscribe", async () => {
    const loaded = await loadConsumers();
    for (const consumer of loaded) expect(consumer.messageTypes.length, consumer.queue).toBeGreaterThan(0);
    for (const message of declaredMessages()) {
      const consumer = loaded.find((candidate) => candidate.queue === message.queue);
      expect(consumer?.messageTypes, message.type).toContain(message.type);
    }
  });

  it("fails a record whose data does not match its declaration, without calling the handler", async () => {
    const loaded = await loadConsumers();
    const intake = loaded.find((consumer) => consumer.queue === "leadIntake")!;
    expect(messageDefinition("lead.received")?.queue).toBe("leadIntake");
    const body = JSON.stringify({
      id: "m1",
      type: "lead.received",
      organizationId: "org",
      occurredAt: new Date().toISOString(),
      data: { leadId: 42 },
    });
    const result = await intake({
      Records: [
        {
          messageId: "m1",
          body,
          attributes: { ApproximateReceiveCount: "1" },
          receiptHandle: "r",
          eventSourceARN: "",
        } as never,
      ],
    });
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: "m1" }]);
  });

  it("keeps each domain's declarations free of runtime imports but valibot and core/queue", () => {
    for (const file of queueModules(path.join(root, "core"))) {
      const imported = [...readFileSync(file, "utf8").matchAll(/^import\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)].map(
        (match) => match[1],
      );
      for (const specifier of imported)
        expect(["valibot", "#core/queue/messages"], path.relative(root, file)).toContain(specifier);
    }
  });

  it("builds every queue consumer in functions/consumers with subscribe (the stream consumers read the table, not a queue)", async () => {
    const streamFiles = new Set(streamConsumers.map((definition) => `${definition.handler.split(".")[0]}.ts`));
    const queueFiles = new Map(consumers.map((definition) => [`${definition.handler.split(".")[0]}.ts`, definition]));
    const files = readdirSync(path.join(root, "functions/consumers")).filter((name) => name.endsWith(".ts"));
    for (const name of files) {
      const file = `functions/consumers/${name}`;
      if (streamFiles.has(file)) continue;
      const definition = queueFiles.get(file);
      expect(definition, `${file} is neither a queue nor a stream consumer in stacks/definitions.ts`).toBeDefined();
      const module = (await import(path.join(root, file))) as Record<string, Consumer>;
      const consumer = module[definition!.handler.split(".")[1]!]!;
      // Only subscribe() gives a consumer its queue and message types (and it validates every record's data).
      expect(consumer.queue, file).toBe(definition!.queue);
      expect(readFileSync(path.join(root, file), "utf8"), file).toMatch(/= subscribe\(/);
    }
  });

  it("hands a record whose data does not match to neither the handler nor the poison hook, and fails it on every receive", async () => {
    const seen: string[] = [];
    const consumer = subscribe("leadIntake", {
      "lead.received": {
        handle: async (message) => void seen.push(`handled ${message.data.leadId}`),
        onPoison: async (message) => void seen.push(`poisoned ${message.data.leadId}`),
      },
    });
    const record = (id: string, data: unknown, receives: number) => ({
      messageId: id,
      body: JSON.stringify({
        id,
        type: "lead.received",
        organizationId: "org",
        occurredAt: new Date().toISOString(),
        data,
      }),
      attributes: { ApproximateReceiveCount: String(receives) },
      receiptHandle: id,
      eventSourceARN: "",
    });
    const last = queues.leadIntake.maxReceiveCount;
    const result = await consumer({
      Records: [
        record("bad-first", { leadId: 42 }, 1),
        record("bad-last", { id: "l1" }, last),
        record("good", { leadId: "l2" }, 1),
      ] as never,
    });
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: "bad-first" }, { itemIdentifier: "bad-last" }]);
    expect(seen).toEqual(["handled l2"]);
  });
});

/**
 * Compile-time checks (run by `npm run typecheck`, never called): a message cannot go to another queue's
 * consumer, and its data must match its declaration.
 */
export function typeChecks(message: Envelope<"lead.received">) {
  // @ts-expect-error message.send travels on outboundMessages, so the leadIntake consumer cannot serve it.
  subscribe("leadIntake", { "message.send": async () => undefined });
  // @ts-expect-error lead.received's data is { leadId }.
  void publish(LeadReceived, "org", { messageId: "m1" });
  // @ts-expect-error a declaration names its queue; there is no queue argument to get wrong.
  void publish("leadIntake", LeadReceived, "org", { leadId: "l1" });
  void publish(MessageSend, "org", { messageId: message.data.leadId });
}
