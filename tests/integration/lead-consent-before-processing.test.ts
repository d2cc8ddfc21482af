import { describe, expect, it } from "vitest";
import { systemActor } from "#core/auth/actor";
import { recordLeadConsent } from "#core/leads/consent";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import * as LeadProcessing from "#core/leads/processing";
import { newId } from "#core/shared/ids";
import * as Suppressions from "#core/suppressions/index";
import { storeUnqueuedLead, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** A new lead with a phone, stored Pending as intake stores it, that only this process will process. */
async function pendingLead(org: TestOrganization): Promise<Lead> {
  const template = (
    await Leads.intake(
      systemActor(org.organizationId),
      { contact: { email: `consent-${newId()}@example.com` } },
      { channel: "Api" },
    )
  ).lead;
  await waitForLead(org, template.id);
  const lead: Lead = {
    ...template,
    id: newId(),
    createdAt: new Date().toISOString(),
    processingStatus: "Pending",
    contact: { ...template.contact, email: null, phone: { number: uniquePhone(), type: null, countryCode: "US" } },
    metadata: {
      ...template.metadata,
      complianceStatus: null,
      complianceBlockedReason: null,
      smsConsentStatus: null,
      smsOptedOut: false,
      smsOptOutAt: null,
      smsOptInAt: null,
      smsConsentPhoneNumber: null,
    },
  };
  await storeUnqueuedLead(leadItem(org.organizationId, lead));
  return lead;
}

// On a busy machine the intake consumer can reach a new lead only after its contact already texted a keyword.
describe("a STOP or START texted before the lead is processed", () => {
  applyStackEnv();

  it("START (after STOP): processing keeps the contact's opt-in instead of writing Unknown over it", async () => {
    const org = await newOrganization();
    const lead = await pendingLead(org);
    const phone = lead.contact.phone!.number;
    const stoppedAt = new Date(Date.now() - 2_000).toISOString();
    const startedAt = new Date(Date.now() - 1_000).toISOString();
    // What the inbound STOP and START do (core/messaging/carrier-callbacks.ts): consent on the lead, the suppression added, then removed.
    await recordLeadConsent(org.organizationId, lead.id, { kind: "OptOut", at: stoppedAt, phoneNumber: phone });
    await Suppressions.add(org.organizationId, { phoneNumber: phone, reason: "OptOutKeyword", leadId: lead.id });
    await recordLeadConsent(org.organizationId, lead.id, { kind: "OptIn", at: startedAt, phoneNumber: phone });
    await Suppressions.delete(
      org.organizationId,
      phone,
      undefined,
      "removed from the suppression list: the contact replied START",
    );

    await LeadProcessing.process(org.organizationId, lead.id);
    const processed = await waitForLead(org, lead.id);
    expect(processed.processingStatus).toBe("Processed");
    expect(processed.metadata).toMatchObject({
      complianceStatus: "Allowed",
      smsConsentStatus: "OptedIn",
      smsOptedOut: false,
      smsOptInAt: startedAt,
      smsOptOutAt: stoppedAt,
      smsConsentPhoneNumber: phone,
    });
  });

  it("STOP: processing blocks the lead and keeps the time the contact opted out", async () => {
    const org = await newOrganization();
    const lead = await pendingLead(org);
    const phone = lead.contact.phone!.number;
    const stoppedAt = new Date(Date.now() - 1_000).toISOString();
    await recordLeadConsent(org.organizationId, lead.id, { kind: "OptOut", at: stoppedAt, phoneNumber: phone });
    await Suppressions.add(org.organizationId, { phoneNumber: phone, reason: "OptOutKeyword", leadId: lead.id });

    await LeadProcessing.process(org.organizationId, lead.id);
    const processed = await waitForLead(org, lead.id);
    expect(processed.metadata).toMatchObject({
      complianceStatus: "Blocked",
      complianceBlockedReason: "Suppressed:OptOutKeyword",
      smsConsentStatus: "OptedOut",
      smsOptedOut: true,
      smsOptOutAt: stoppedAt,
    });
  });
});
