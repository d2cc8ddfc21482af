import type { DynamoDBRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { config } from "#core/config";
import { table } from "#core/db/items";
import * as Leads from "#core/leads/index";
import { leadItem } from "#core/leads/index";
import { systemActor } from "#core/auth/actor";
import { newId } from "#core/shared/ids";
import { startStreamPoller, type StreamFailureRecord } from "#local/stream-poller";
import { streamConsumers } from "#stacks/definitions";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";
import { waitForLead } from "#tests/helpers/leads";

/**
 * A stream consumer receives only the changes its manifest entry names (event, entity and `where` attributes of
 * the new image), locally as Lambda event filtering does in AWS. The intake outbox relies on it: a lead written
 * in bulk as Processed, or rewritten, must not be queued (its trigger would be published again).
 */
describe("stream consumer filters", () => {
  applyStackEnv();

  it("hands the intake outbox only leads inserted Pending", { timeout: 150_000 }, async () => {
    const org = await newOrganization();
    const template = (
      await Leads.intake(
        systemActor(org.organizationId),
        { contact: { email: `filter-${newId()}@example.com` } },
        { channel: "Api" },
      )
    ).lead;
    await waitForLead(org, template.id);
    const outbox = streamConsumers.find((consumer) => consumer.name === "leadIntakeOutbox")!;
    const received: DynamoDBRecord[] = [];
    const deadLetters: StreamFailureRecord[] = [];
    const poller = startStreamPoller({
      endpoint: config.dynamodbEndpoint!,
      dynamodb: db() as never,
      tableName: tableName(),
      records: outbox.records,
      batchSize: outbox.batchSize,
      timeoutSeconds: outbox.timeoutSeconds,
      handler: async (event) => {
        received.push(
          ...event.Records.filter((record) => record.dynamodb?.NewImage?.organizationId?.S === org.organizationId),
        );
        return { batchItemFailures: [] };
      },
      deadLetters: async (failure) => void deadLetters.push(failure),
    });
    try {
      const pending = { ...template, id: newId(), processingStatus: "Pending" as const };
      const processed = { ...template, id: newId(), processingStatus: "Processed" as const };
      await table.put({ Item: leadItem(org.organizationId, processed) });
      await table.put({ Item: leadItem(org.organizationId, pending) });
      await table.put({ Item: { ...leadItem(org.organizationId, pending), modifiedAt: new Date().toISOString() } });
      // A last insert: once it has arrived, every earlier change of the shard has been filtered.
      const last = { ...template, id: newId(), processingStatus: "Pending" as const };
      await table.put({ Item: leadItem(org.organizationId, last) });
      // A new poller reads every shard from its oldest record, as a new Lambda event source does: late in a full run
      // that is the whole suite's stream before these records, so it may take a while on a two-core machine.
      await expect
        .poll(() => received.map((record) => record.dynamodb?.NewImage?.id?.S), { timeout: 100_000, interval: 200 })
        .toContain(last.id);
      // The template (inserted Pending by intake) and the two new pending leads; not the processed one, not the rewrite.
      expect(received.map((record) => [record.eventName, record.dynamodb?.NewImage?.id?.S])).toEqual([
        ["INSERT", template.id],
        ["INSERT", pending.id],
        ["INSERT", last.id],
      ]);
      expect(deadLetters).toEqual([]);
    } finally {
      await poller.stop();
    }
  });
});
