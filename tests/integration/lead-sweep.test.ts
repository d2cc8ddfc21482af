import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { systemActor } from "#core/auth/actor";
import { db, tableName } from "#core/db/client";
import { leadItem, Leads, type Lead } from "#core/leads/index";
import { LeadProcessing, sweepAfterMs } from "#core/leads/processing";
import { newId } from "#core/shared/ids";
import { uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization } from "#tests/helpers/stack";

describe("the pending-lead sweep", () => {
  it("republishes a lead whose queue message was lost, and the consumer then processes it", async () => {
    const org = await newOrganization();
    // Store a lead as intake does, but so that the intake outbox never sees its insert (a stream consumer that could
    // not catch up): a placeholder takes the key first, so the lead itself arrives as a change, not an insert.
    const template = (await Leads.intake(systemActor(org.organizationId), { contact: { email: `sweep-${newId()}@example.com` } }, { channel: "Api" })).lead;
    await waitForLead(org, template.id);
    const createdAt = new Date(Date.now() - sweepAfterMs - 60_000).toISOString();
    const lost: Lead = { ...template, id: newId(), createdAt, processingStatus: "Pending", contact: { ...template.contact, email: null, phone: { number: uniquePhone(), type: null, countryCode: "US" } } };
    const stored = leadItem(org.organizationId, lost);
    await db().send(new PutCommand({ TableName: tableName(), Item: { pk: stored.pk, sk: stored.sk, entity: "Placeholder" } }));
    await db().send(new PutCommand({ TableName: tableName(), Item: stored }));

    expect(await LeadProcessing.sweep()).toBeGreaterThanOrEqual(1);
    expect((await waitForLead(org, lost.id)).processingStatus).toBe("Processed");
  });

  it("leaves recent pending leads to their own message", async () => {
    const before = Date.now();
    const republished = await LeadProcessing.sweep(before - sweepAfterMs - 3_600_000);
    expect(republished).toBe(0);
  });
});
