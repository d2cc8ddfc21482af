import { LeadReceived } from "#core/leads/queue";
import { GetQueueUrlCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { queryAll } from "#core/db/query";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { entities, keys } from "#core/db/keys";
import { toEventRecord } from "#core/events/index";
import { publish } from "#core/queue/messages";
import { sqs } from "#core/queue/client";
import {
  intakeByBody,
  intakeByQuery,
  newSource,
  storeUnqueuedLead,
  uniqueEmail,
  uniquePhone,
  waitForLead,
} from "#tests/helpers/leads";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

applyStackEnv();

/** The lead's stored events, read as records (an event item stores its longer fields under short names). */
async function leadEvents(organizationId: string, leadId: string) {
  const { gsi1pk } = keys.eventsByLead(organizationId, leadId);
  const items = await queryAll({
    index: "eventsByLead",
    KeyConditionExpression: "gsi1pk = :pk",
    ExpressionAttributeValues: { ":pk": gsi1pk },
  });
  return items.map((item) => toEventRecord(item));
}

async function storedLead(organizationId: string, leadId: string) {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.lead(organizationId, leadId), ConsistentRead: true }),
  );
  return Item!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("lead processing", () => {
  it("records a lead event (spec 2.5 shape) and marks the automation trigger as published", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const created = await intakeByQuery(source, { FirstName: "Ada", Phone: uniquePhone() });
    const lead = await waitForLead(org, created.body.id);
    expect(lead.processingStatus).toBe("Processed");
    const events = await leadEvents(org.organizationId, lead.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      eventType: "LeadCreated",
      eventCategory: "Lead",
      leadId: lead.id,
      sourceId: source.sourceId,
      trafficType: "RealLead",
      status: "Processed",
      toPhoneNumber: lead.contact.phone.number,
      createdBy: `source:${source.sourceId}`,
    });
    await expect
      .poll(async () => (await storedLead(org.organizationId, lead.id)).triggerPublishedAt, { timeout: 15_000 })
      .toEqual(expect.any(String));
  });

  it("marks a second lead with the same phone within the window as Duplicate of the first", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const first = await intakeByQuery(source, { Phone: phone, SellerLeadId: "D-1" });
    await waitForLead(org, first.body.id);
    const second = await intakeByBody(source, { Phone: phone.replace("+1", ""), SellerLeadId: "D-2" });
    expect(second.status).toBe(201);
    const duplicate = await waitForLead(org, second.body.id);
    expect(duplicate).toMatchObject({
      processingStatus: "Duplicate",
      processingReason: "DuplicateContact",
      duplicateOfLeadId: first.body.id,
    });
    expect((await leadEvents(org.organizationId, second.body.id))[0]).toMatchObject({ eventType: "LeadDuplicate" });
    expect((await storedLead(org.organizationId, second.body.id)).triggerPublishedAt).toBeUndefined();
  });

  it("deduplicates on email too, case-insensitively, across sources of the organization", async () => {
    const org = await newOrganization();
    const email = uniqueEmail();
    const first = await intakeByQuery(await newSource(org), { Email: email });
    await waitForLead(org, first.body.id);
    const second = await intakeByQuery(await newSource(org), { Email: email.toUpperCase() });
    expect(await waitForLead(org, second.body.id)).toMatchObject({
      processingStatus: "Duplicate",
      duplicateOfLeadId: first.body.id,
    });
  });

  it("keeps exactly one original when the same contact arrives many times at once", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, index) => intakeByQuery(source, { Phone: phone, SellerLeadId: `C-${index}` })),
    );
    expect(responses.every((response) => response.status === 201)).toBe(true);
    const leads = await Promise.all(responses.map((response) => waitForLead(org, response.body.id)));
    const originals = leads.filter((lead) => lead.processingStatus === "Processed");
    expect(originals).toHaveLength(1);
    for (const lead of leads.filter((lead) => lead.processingStatus !== "Processed")) {
      expect(lead).toMatchObject({ processingStatus: "Duplicate", duplicateOfLeadId: originals[0].id });
    }
  });

  it("does not deduplicate a source whose duplicate window is 0 hours", async () => {
    const org = await newOrganization();
    const source = await newSource(org, { duplicateWindowHours: 0 });
    const phone = uniquePhone();
    const first = await intakeByQuery(source, { Phone: phone });
    const second = await intakeByQuery(source, { Phone: phone });
    expect((await waitForLead(org, first.body.id)).processingStatus).toBe("Processed");
    expect((await waitForLead(org, second.body.id)).processingStatus).toBe("Processed");
  });

  it("blocks a suppressed phone: compliance Blocked with the reason, consent opted out", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const suppressedAt = "2024-01-02T03:04:05.000Z";
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.suppression(org.organizationId, phone),
          entity: entities.suppression,
          phoneNumber: phone,
          reason: "OptOutKeyword",
          createdAt: suppressedAt,
        },
      }),
    );
    const created = await intakeByQuery(source, { Phone: phone });
    const lead = await waitForLead(org, created.body.id);
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      metadata: {
        complianceStatus: "Blocked",
        complianceBlockedReason: "Suppressed:OptOutKeyword",
        smsConsentStatus: "OptedOut",
        smsOptedOut: true,
        smsOptOutAt: suppressedAt,
      },
    });
    expect((await leadEvents(org.organizationId, lead.id))[0]).toMatchObject({ complianceAction: "Blocked" });
  });

  it("rejects a lead with neither phone nor email, with the reason", async () => {
    const org = await newOrganization();
    const created = await intakeByQuery(await newSource(org), { FirstName: "Nobody" });
    expect(created.status).toBe(201);
    expect(await waitForLead(org, created.body.id)).toMatchObject({
      processingStatus: "Rejected",
      processingReason: "NoContactChannel",
    });
  });

  it("creates no second lead, event or trigger when the intake message is redelivered", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const created = await intakeByQuery(source, { Phone: uniquePhone() });
    const lead = await waitForLead(org, created.body.id);
    await expect
      .poll(async () => (await storedLead(org.organizationId, lead.id)).triggerPublishedAt, { timeout: 15_000 })
      .toEqual(expect.any(String));
    const before = await storedLead(org.organizationId, lead.id);
    await Promise.all([1, 2, 3].map(() => publish(LeadReceived, org.organizationId, { leadId: lead.id })));
    await sleep(2_000);
    const after = await storedLead(org.organizationId, lead.id);
    expect(after.processedAt).toBe(before.processedAt);
    expect(after.triggerPublishedAt).toBe(before.triggerPublishedAt);
    expect(await leadEvents(org.organizationId, lead.id)).toHaveLength(1);
    const listed = await org.request("POST", "/leads/all/my", { body: { includeCount: true } });
    expect(listed.body.totalCount).toBe(1);
  });

  it(
    "sends a poison message to the DLQ after its retries and shows the lead as Failed",
    { timeout: 60_000 },
    async () => {
      const org = await newOrganization();
      const leadId = `01POISON${Date.now()}`.slice(0, 26);
      // A stored lead whose record cannot be read (fault injection): processing throws on every attempt.
      await storeUnqueuedLead({
        ...keys.lead(org.organizationId, leadId),
        entity: entities.lead,
        id: leadId,
        createdAt: new Date().toISOString(),
        processingStatus: "Pending",
        contact: "garbage",
      });
      await publish(LeadReceived, org.organizationId, { leadId });
      await expect
        .poll(async () => (await storedLead(org.organizationId, leadId)).processingStatus, {
          timeout: 45_000,
          interval: 500,
        })
        .toBe("Failed");
      expect((await storedLead(org.organizationId, leadId)).processingReason).toBe("ProcessingError");

      const { QueueUrl } = await (await sqs()).send(new GetQueueUrlCommand({ QueueName: "leadIntake-dlq" }));
      const found = async () => {
        const { Messages } = await (
          await sqs()
        ).send(
          new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 1 }),
        );
        return (Messages ?? []).some((message) => message.Body?.includes(leadId));
      };
      await expect.poll(found, { timeout: 15_000, interval: 200 }).toBe(true);
    },
  );
});
