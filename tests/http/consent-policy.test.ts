import { describe, expect, it } from "vitest";
import { chain, createAutomation, readyToText, waitForRuns } from "#tests/helpers/automations";
import { claimsOf, newCertificate, withTrustedForm } from "#tests/helpers/consent";
import { intakeByQuery, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** A lead from a source with the given policy, processed; `certificate` true sends a certificate TrustedForm verifies. */
async function leadUnder(org: TestOrganization, consentPolicy: "require" | "allow", certificate = false) {
  const source = await newSource(org, { consentPolicy });
  const phone = uniquePhone();
  const verified = certificate ? await newCertificate({ apiKey: await withTrustedForm(org), phone }) : undefined;
  const created = await intakeByQuery(source, {
    Phone: phone,
    ...(verified ? { CertifiedFormUrl: verified.url } : {}),
  });
  expect(created.status).toBe(201);
  return { lead: await waitForLead(org, created.body.id), certificate: verified };
}

const consentRecord = {
  capturedAt: "2026-01-05T14:03:00.000Z",
  channel: "Phone",
  consentLanguage:
    "I agree that Acme may call and text me about my quote at this number, including by automated means.",
  evidenceUrl: "https://files.example.com/recordings/123.mp3",
};

describe("consent policy of a source: require", () => {
  it("flags a lead without verified consent; an automated send to it is a 422, an agent's one-to-one message goes out with that basis", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const { lead } = await leadUnder(org, "require");
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      metadata: {
        smsConsentStatus: "Unknown",
        complianceStatus: "ConsentRequired",
        complianceBlockedReason: "VerifiedConsentRequired:NoCertificate",
      },
    });

    const automated = await send(org, { leadId: lead.id, body: "Your quote is ready" }, org.apiKey);
    expect(automated.status).toBe(422);
    expect(automated.body.detail).toMatch(/requires a verified consent/);
    const call = await org.request("POST", "/calls", { token: org.apiKey, body: { leadId: lead.id } });
    expect(call.status).toBe(422);

    const agent = await send(org, { leadId: lead.id, body: "Hi, this is Sam from Acme" });
    expect(agent.status).toBe(202);
    expect(agent.body.consentBasis).toMatchObject({
      kind: "ManualOneToOne",
      reference: org.userIds.owner,
      evidenceId: null,
    });

    // The agent's message opened the lead's conversation: its bare number is still the lead's, under its policy.
    const byNumber = await send(org, { to: lead.contact.phone.number, body: "Your quote is ready" }, org.apiKey);
    expect(byNumber.status).toBe(422);
    expect(byNumber.body.detail).toMatch(/requires a verified consent/);
    const callByNumber = await org.request("POST", "/calls", {
      token: org.apiKey,
      body: { to: lead.contact.phone.number },
    });
    expect(callByNumber.status).toBe(422);
  });

  it("an automated send to a lead still Pending is refused under its source's policy, before processing has run", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const source = await newSource(org, { consentPolicy: "require" });
    const created = await intakeByQuery(source, { Phone: uniquePhone() });
    expect(created.status).toBe(201);
    // Straight after the 201: the lead is stored, its processing (which reads the source again) has not run.
    const automated = await send(org, { leadId: created.body.id, body: "Your quote is ready" }, org.apiKey);
    expect(automated.status).toBe(422);
    expect(automated.body.detail).toMatch(/requires a verified consent/);
  });

  it("a consent record the business posts opts the lead in and is the basis of its automated sends", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const { lead } = await leadUnder(org, "require");
    const recorded = await org.request("POST", `/leads/${lead.id}/consent`, { body: consentRecord });
    expect(recorded.status).toBe(201);
    expect(recorded.body).toMatchObject({
      kind: "ConsentRecord",
      leadId: lead.id,
      record: { ...consentRecord, pageUrl: null, ipAddress: null },
      recordedBy: org.userIds.owner,
    });
    const read = await org.request("GET", `/leads/${lead.id}`);
    expect(read.body.metadata).toMatchObject({ smsConsentStatus: "OptedIn", smsOptInAt: consentRecord.capturedAt });

    const sent = await send(org, { leadId: lead.id, body: "Your quote is ready" }, org.apiKey);
    expect(sent.status).toBe(202);
    expect(sent.body.consentBasis).toEqual({
      kind: "ConsentRecord",
      evidenceId: recorded.body.id,
      reference: null,
      at: consentRecord.capturedAt,
    });
  });

  it("a consent record without its consent language is a 400, and another organization's lead a 404", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const { lead } = await leadUnder(org, "require");
    const missing = await org.request("POST", `/leads/${lead.id}/consent`, {
      body: { capturedAt: consentRecord.capturedAt, channel: "Phone" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((error: { pointer: string }) => error.pointer)).toContain("/consentLanguage");
    expect((await other.request("POST", `/leads/${lead.id}/consent`, { body: consentRecord })).status).toBe(404);
    expect((await other.request("GET", `/leads/${lead.id}/consent`)).status).toBe(404);
  });

  it("automations skip texting a lead without verified consent, with the rule as the step's reason, and send nothing", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const automation = await createAutomation(
      org,
      chain({ type: "LeadCreated" }, [
        { id: "hello", type: "SendSms", settings: { body: "Hi!" } },
        { id: "end", type: "Stop" },
      ]),
    );
    const { lead } = await leadUnder(org, "require");
    const [run] = await waitForRuns(org, automation.id);
    expect(run.leadId).toBe(lead.id);
    const step = run.steps.find((entry: { nodeId: string }) => entry.nodeId === "hello");
    expect(step).toMatchObject({
      status: "Skipped",
      error: expect.stringMatching(/requires a verified consent/),
      output: { complianceAction: "ConsentRequired" },
    });
    expect(run.path).toEqual(["t", "hello", "end"]);
    const record = await org.request("GET", `/leads/${lead.id}/consent`);
    expect(record.body.contactAttempts).toEqual([]);
  });

  it("a verified certificate is the basis of the lead's automated sends, and the consent record shows each send with it", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const { lead, certificate } = await leadUnder(org, "require", true);
    expect(lead.metadata).toMatchObject({ smsConsentStatus: "OptedIn", complianceStatus: "Allowed" });
    expect(await claimsOf(certificate!.certificateId)).toHaveLength(1);

    const sent = await send(org, { leadId: lead.id, body: "Your quote is ready" }, org.apiKey);
    expect(sent.status).toBe(202);
    expect(sent.body.consentBasis).toMatchObject({ kind: "Certificate", reference: certificate!.certificateId });
    await waitForMessage(org, sent.body.id);

    const record = await org.request("GET", `/leads/${lead.id}/consent`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({
      leadId: lead.id,
      consentPolicy: "require",
      smsConsentStatus: "OptedIn",
      consentBasis: { kind: "Certificate", reference: certificate!.certificateId },
      certificate: { outcome: "Verified", certificate: { certificateId: certificate!.certificateId } },
      optOuts: [],
    });
    expect(record.body.contactAttempts).toEqual([
      expect.objectContaining({
        id: sent.body.id,
        channel: "Sms",
        toPhoneNumber: lead.contact.phone.number,
        content: "Your quote is ready",
        status: "Delivered",
        consentBasis: sent.body.consentBasis,
      }),
    ]);

    const page = await org.request("GET", `/leads/${lead.id}/consent/print`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.body).toContain(certificate!.certificateId);
    expect(page.body).toContain("Your quote is ready");
  });
});

describe("consent policy of a source: allow (the default)", () => {
  it("processes an unverified lead as Allowed; automated sends go without a basis", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const { lead } = await leadUnder(org, "allow");
    expect(lead.metadata).toMatchObject({ smsConsentStatus: "Unknown", complianceStatus: "Allowed" });
    const sent = await send(org, { leadId: lead.id, body: "Hello" }, org.apiKey);
    expect(sent.status).toBe(202);
    expect(sent.body.consentBasis).toBeNull();
  });
});
