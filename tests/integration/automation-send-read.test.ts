// The calls of the step are counted (core/observability/call-count.ts): set before the DynamoDB client is made.
process.env.MEASURE_CALLS = "1";

import { afterAll, describe, expect, it } from "vitest";
import { triggerHandlers } from "#core/automations/runs/triggers";
import { getItem } from "#core/db/items";
import { keys } from "#core/db/keys";
import { LeadCreated } from "#core/leads/queue";
import { measureScope, type CallRecord } from "#core/observability/call-count";
import { envelope } from "#core/queue/messages";
import "#core/automations/runs/queue";
import { chain, createAutomation, listRuns, readyToText } from "#tests/helpers/automations";
import { intakeByQuery, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { createLead, randomNumber } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

afterAll(() => {
  delete process.env.MEASURE_CALLS;
});

/**
 * A run's first send step reads its lead and the send's first items (wallet, the number's conversation pointer,
 * settings) in one consistent BatchGetItem (issue 27, tenth pass), planned for the number of the lead the run was
 * started from; what it renders and decides on is the lead as that read found it.
 */
describe("a first send step reads its lead with the send's items", () => {
  applyStackEnv();

  /** The automations below take only this source's `lead.created`, which the test hands to the trigger itself. */
  const sourceId = "send-read-source";
  const sendsOnCreate = (org: TestOrganization) =>
    createAutomation(
      org,
      chain({ type: "LeadCreated", settings: { sourceIds: [sourceId] } }, [
        { id: "hello", type: "SendSms", settings: { body: "Hello {{contact.firstName}}" } },
      ]),
    );

  /** The lead's `lead.created` carrying `snapshot` (the lead as its producer stored it), handled here, its calls counted. */
  const triggered = async (org: TestOrganization, leadId: string, snapshot: Record<string, unknown>) => {
    const message = envelope(LeadCreated, org.organizationId, {
      leadId,
      sourceId,
      complianceStatus: null,
      lead: snapshot,
    });
    const { measurement } = await measureScope(() => triggerHandlers["lead.created"](message));
    return measurement.calls.filter((call) => call.service === "dynamodb");
  };

  const sentBy = async (org: TestOrganization, automationId: string) => {
    const [run] = await listRuns(org, automationId);
    // The send is made (the step observes it until it is handed off).
    expect(run.steps[1]).toMatchObject({ nodeId: "hello", output: { messageId: expect.any(String) } });
    const message = await org.request("GET", `/messages/${run.steps[1].output.messageId}`);
    expect(message.status).toBe(200);
    return message.body;
  };

  const touching = (calls: CallRecord[], text: string) => calls.filter((call) => call.target.includes(text));

  it("a lead given consent after the trigger's snapshot is sent under that consent, its item read once with the wallet and its number's pointer", async () => {
    const org = await newOrganization();
    await readyToText(org);
    // A source that requires verified consent: the lead arrives without it, and its snapshot says so.
    const source = await newSource(org, { consentPolicy: "require" });
    const phone = uniquePhone();
    const created = await intakeByQuery(source, { Phone: phone, FirstName: "Noor" });
    expect(created.status).toBe(201);
    const lead = await waitForLead(org, created.body.id);
    const snapshot = (await getItem(keys.lead(org.organizationId, lead.id), { consistent: true }))!;
    const automation = await sendsOnCreate(org);
    // Between the snapshot and the step, the business records the lead's consent.
    const recorded = await org.request("POST", `/leads/${lead.id}/consent`, {
      body: {
        capturedAt: "2026-01-05T14:03:00.000Z",
        channel: "Phone",
        consentLanguage: "I agree that Acme may text me about my quote at this number, including by automated means.",
      },
    });
    expect(recorded.status).toBe(201);

    const calls = await triggered(org, lead.id, snapshot);
    const message = await sentBy(org, automation.id);
    expect(message).toMatchObject({ toPhoneNumber: phone, body: "Hello Noor" });
    expect(message.consentBasis).toMatchObject({ kind: "ConsentRecord", evidenceId: recorded.body.id });
    // The lead's item was read once, in the BatchGetItem of the send's wallet and its number's conversation pointer.
    const leadReads = touching(calls, `LEAD#${lead.id}|LEAD`);
    expect(leadReads.map((call) => call.command)).toEqual(["BatchGetItemCommand"]);
    expect(leadReads[0]!.target).toContain("WALLET");
    expect(leadReads[0]!.target).toContain(`CONVERSATIONPHONE#${phone}|`);
    expect(touching(calls, "|WALLET")).toHaveLength(1);
  });

  it("a lead whose number is not the one its snapshot had is texted at the number it has: the pointer of that number is read", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const phone = randomNumber("212");
    const lead = await createLead(org, phone);
    const stored = (await getItem(keys.lead(org.organizationId, lead.id), { consistent: true }))!;
    // The snapshot the run starts from has another number than the stored lead (its number changed since).
    const earlier = randomNumber("212");
    const contact = stored.contact as { phone: { number: string } };
    const snapshot = { ...stored, contact: { ...contact, phone: { ...contact.phone, number: earlier } } };
    const automation = await sendsOnCreate(org);

    const calls = await triggered(org, lead.id, snapshot);
    const message = await sentBy(org, automation.id);
    expect(message).toMatchObject({ toPhoneNumber: phone, body: "Hello Dana" });
    // Planned for the snapshot's number with the lead; the number the lead has was read again for the send.
    expect(touching(calls, `LEAD#${lead.id}|LEAD`).map((call) => call.command)).toEqual(["BatchGetItemCommand"]);
    expect(touching(calls, `CONVERSATIONPHONE#${earlier}|`)[0]!.target).toContain(`LEAD#${lead.id}|LEAD`);
    expect(touching(calls, `CONVERSATIONPHONE#${phone}|`).map((call) => call.command)).toContain("BatchGetItemCommand");
  });
});
