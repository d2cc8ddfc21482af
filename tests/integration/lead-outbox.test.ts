import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import { systemActor } from "#core/auth/actor";
import { newId } from "#core/shared/ids";
import { uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization } from "#tests/helpers/stack";

/**
 * Issue 16: intake answers after the rate limit and the put; the lead's queue
 * message comes from the table's stream (the `leadIntakeOutbox` consumer), so a
 * lead stored Pending is processed whoever stored it and whatever happened to
 * the request after the put. (A lead that arrives as a change, not an insert, is
 * left to the pending-lead sweep: tests/integration/lead-sweep.test.ts.)
 */
describe("the lead intake outbox", () => {
  it("queues a lead for processing from its insert alone: no request published it", async () => {
    const org = await newOrganization();
    const template = (
      await Leads.intake(
        systemActor(org.organizationId),
        { contact: { email: `outbox-${newId()}@example.com` } },
        { channel: "Api" },
      )
    ).lead;
    await waitForLead(org, template.id);
    // Stored the way intake stores it, with no request around it and no publish after it.
    const stored: Lead = {
      ...template,
      id: newId(),
      processingStatus: "Pending",
      processedAt: null,
      contact: { ...template.contact, email: null, phone: { number: uniquePhone(), type: null, countryCode: "US" } },
    };
    await db().send(new PutCommand({ TableName: tableName(), Item: leadItem(org.organizationId, stored) }));
    expect((await waitForLead(org, stored.id)).processingStatus).toBe("Processed");
  });
});
