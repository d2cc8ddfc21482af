import { describe, expect, it } from "vitest";
import { systemActor } from "#core/auth/actor";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import * as LeadProcessing from "#core/leads/processing";
import { sweepAfterMs } from "#core/leads/processing";
import { newId } from "#core/shared/ids";
import { storeUnqueuedLead, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization } from "#tests/helpers/stack";

describe("the pending-lead sweep", () => {
  it("republishes a lead whose queue message was lost, and the consumer then processes it", async () => {
    const org = await newOrganization();
    // Store a lead as intake does, but so that the intake outbox never queues it (a stream consumer that could not catch up).
    const template = (
      await Leads.intake(
        systemActor(org.organizationId),
        { contact: { email: `sweep-${newId()}@example.com` } },
        { channel: "Api" },
      )
    ).lead;
    await waitForLead(org, template.id);
    const createdAt = new Date(Date.now() - sweepAfterMs - 60_000).toISOString();
    const lost: Lead = {
      ...template,
      id: newId(),
      createdAt,
      processingStatus: "Pending",
      contact: { ...template.contact, email: null, phone: { number: uniquePhone(), type: null, countryCode: "US" } },
    };
    await storeUnqueuedLead(leadItem(org.organizationId, lost));

    expect(await LeadProcessing.sweep()).toBeGreaterThanOrEqual(1);
    expect((await waitForLead(org, lost.id)).processingStatus).toBe("Processed");
  });

  it("leaves recent pending leads to their own message", async () => {
    const before = Date.now();
    const republished = await LeadProcessing.sweep(before - sweepAfterMs - 3_600_000);
    expect(republished).toBe(0);
  });
});
