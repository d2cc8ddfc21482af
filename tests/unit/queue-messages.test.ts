import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { declaredMessages, messageDefinition } from "#core/queue/events";
import { consumers, queues } from "#stacks/definitions";

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

type Consumer = ((event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>) & { queue: string; messageTypes: string[] };

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
    const body = JSON.stringify({ id: "m1", type: "lead.received", organizationId: "org", occurredAt: new Date().toISOString(), data: { leadId: 42 } });
    const result = await intake({
      Records: [{ messageId: "m1", body, attributes: { ApproximateReceiveCount: "1" }, receiptHandle: "r", eventSourceARN: "" } as never],
    });
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: "m1" }]);
  });
});
