import { describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import {
  claimsOf,
  leadiDRequestsOf,
  newCertificate,
  newLeadiDToken,
  withJornaya,
  withTrustedForm,
} from "#tests/helpers/consent";
import { intakeByQuery, newSource, uniqueEmail, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { eventsWhen } from "#tests/helpers/messaging";
import { REVERIFY_BACKOFF_MS, reverifyDue } from "#core/leads/reverify";

/** Posts a lead with the certificate and waits until it is processed; answers the lead and its consent record. */
async function intakeWithCertificate(
  org: TestOrganization,
  url: string,
  contact: { Phone: string; Email?: string; JornayaLeadId?: string },
  timeoutMs?: number,
) {
  const source = await newSource(org);
  const created = await intakeByQuery(source, { ...contact, CertifiedFormUrl: url });
  expect(created.status).toBe(201);
  const lead = await waitForLead(org, created.body.id, undefined, timeoutMs);
  const record = await org.request("GET", `/leads/${lead.id}/consent`);
  expect(record.status).toBe(200);
  return { lead, record: record.body, source };
}

/** A lead whose TrustedForm claim met an outage through every retry: processed Unverified, to be verified again later. */
async function leadLeftUnverifiedByOutage() {
  const org = await newOrganization();
  const apiKey = await withTrustedForm(org);
  const phone = uniquePhone();
  const certificate = await newCertificate({ apiKey, phone, outages: 1000 });
  const { lead } = await intakeWithCertificate(org, certificate.url, { Phone: phone }, 90_000);
  expect(lead).toMatchObject({
    processingReason: "ConsentVerificationUnavailable",
    metadata: { smsConsentStatus: "Unverified" },
  });
  return { org, apiKey, phone, certificate, lead };
}

describe("TrustedForm verification at intake", () => {
  it("a valid certificate of the lead's phone opts the lead in and keeps the certificate; the claim is the documented v4 request", async () => {
    const org = await newOrganization();
    const apiKey = await withTrustedForm(org);
    const phone = uniquePhone();
    const email = uniqueEmail();
    const capturedAt = new Date(Date.now() - 5 * 60_000).toISOString();
    const consentLanguage =
      "By clicking Submit I agree that Acme may call and text me at the number above, including by automated means.";
    const certificate = await newCertificate({
      apiKey,
      phone,
      email,
      capturedAt,
      consentLanguage,
      pageUrl: "https://quotes.example.com/auto",
    });

    const { lead, record } = await intakeWithCertificate(org, certificate.url, { Phone: phone, Email: email });

    expect(lead).toMatchObject({
      processingStatus: "Processed",
      processingReason: null,
      metadata: {
        smsConsentStatus: "OptedIn",
        smsOptedOut: false,
        smsOptInAt: capturedAt,
        smsConsentPhoneNumber: phone,
        complianceStatus: "Allowed",
      },
    });
    expect(record.certificate).toMatchObject({
      kind: "Certificate",
      outcome: "Verified",
      certificate: {
        provider: "TrustedForm",
        certificateId: certificate.certificateId,
        certificateUrl: certificate.url,
        pageUrl: "https://quotes.example.com/auto",
        consentLanguage,
        capturedAt,
        expiresAt: expect.any(String),
        retainedUntil: expect.any(String),
        phoneMatched: true,
        emailMatched: true,
      },
    });
    expect(record.consentBasis).toMatchObject({
      kind: "Certificate",
      reference: certificate.certificateId,
      evidenceId: record.certificate.id,
    });

    const claims = await claimsOf(certificate.certificateId);
    expect(claims).toHaveLength(1);
    expect(claims[0]).toMatchObject({
      method: "POST",
      apiVersion: "4.0",
      contentType: "application/json",
      authorization: `Basic ${Buffer.from(`API:${apiKey}`).toString("base64")}`,
      answered: 200,
    });
    expect(claims[0]!.body).toEqual({
      match_lead: { email, phone: phone.slice(2) },
      retain: { reference: lead.id, vendor: "Test source" },
      insights: { properties: ["page_url", "created_at", "expires_at"] },
      verify: {},
    });
  });

  it("an expired certificate leaves the lead Unverified, the outcome kept", async () => {
    const org = await newOrganization();
    const apiKey = await withTrustedForm(org);
    const phone = uniquePhone();
    const certificate = await newCertificate({ apiKey, phone, state: "expired" });
    const { lead, record } = await intakeWithCertificate(org, certificate.url, { Phone: phone });
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      metadata: { smsConsentStatus: "Unverified", smsOptInAt: null },
    });
    expect(record.certificate).toMatchObject({
      outcome: "Expired",
      reason: "Certificate has expired.",
      certificate: null,
    });
    expect(record.consentBasis).toBeNull();
  });

  it("a certificate whose fingerprints match neither the lead's phone nor its e-mail is a phone mismatch: Unverified", async () => {
    const org = await newOrganization();
    const apiKey = await withTrustedForm(org);
    const certificate = await newCertificate({ apiKey, phone: uniquePhone(), email: uniqueEmail() });
    const { lead, record } = await intakeWithCertificate(org, certificate.url, {
      Phone: uniquePhone(),
      Email: uniqueEmail(),
    });
    expect(lead.metadata.smsConsentStatus).toBe("Unverified");
    expect(record.certificate).toMatchObject({ outcome: "PhoneMismatch", certificate: null });
  });

  it("an unknown certificate is not found: Unverified", async () => {
    const org = await newOrganization();
    await withTrustedForm(org);
    const { lead, record } = await intakeWithCertificate(
      org,
      "https://cert.trustedform.com/0123456789abcdef0123456789abcdef01234567",
      { Phone: uniquePhone() },
    );
    expect(lead.metadata.smsConsentStatus).toBe("Unverified");
    expect(record.certificate).toMatchObject({ outcome: "NotFound", reason: "Certificate not found." });
  });

  it("credentials TrustedForm refuses (another account's certificate) leave the lead Unverified", async () => {
    const org = await newOrganization();
    await withTrustedForm(org);
    const phone = uniquePhone();
    const certificate = await newCertificate({ apiKey: "someone-elses-key", phone });
    const { lead, record } = await intakeWithCertificate(org, certificate.url, { Phone: phone });
    expect(lead.metadata.smsConsentStatus).toBe("Unverified");
    expect(record.certificate).toMatchObject({ outcome: "Refused", reason: "Invalid API key." });
    expect((await claimsOf(certificate.certificateId)).map((claim) => claim.answered)).toEqual([403]);
  });

  it("a URL not on cert.trustedform.com is never sent our credentials, and no account means no claim: Unverified either way", async () => {
    const org = await newOrganization();
    const { lead: unconfigured, record: noAccount } = await intakeWithCertificate(
      org,
      "https://cert.trustedform.com/abcdef0123456789",
      { Phone: uniquePhone() },
    );
    expect(unconfigured.metadata.smsConsentStatus).toBe("Unverified");
    expect(noAccount.certificate).toMatchObject({ outcome: "NotConfigured" });

    await withTrustedForm(org);
    const { lead, record } = await intakeWithCertificate(org, "https://cert.example.com/abc", { Phone: uniquePhone() });
    expect(lead.metadata.smsConsentStatus).toBe("Unverified");
    expect(record.certificate).toMatchObject({
      outcome: "NotFound",
      reason: expect.stringContaining("Not a TrustedForm certificate URL"),
    });
  });

  it("an outage is retried with the lead waiting (AwaitingConsentVerification), then verified once TrustedForm answers", async () => {
    const org = await newOrganization();
    const apiKey = await withTrustedForm(org);
    const phone = uniquePhone();
    const certificate = await newCertificate({ apiKey, phone, outages: 2 });
    const source = await newSource(org);
    const created = await intakeByQuery(source, { Phone: phone, CertifiedFormUrl: certificate.url });
    expect(created.status).toBe(201);
    const waiting = await waitForLead(
      org,
      created.body.id,
      (lead) => lead.processingReason === "AwaitingConsentVerification" || lead.processingStatus !== "Pending",
    );
    expect(waiting).toMatchObject({ processingStatus: "Pending", processingReason: "AwaitingConsentVerification" });
    const lead = await waitForLead(org, created.body.id, undefined, 60_000);
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      processingReason: null,
      metadata: { smsConsentStatus: "OptedIn" },
    });
    expect((await claimsOf(certificate.certificateId)).map((claim) => claim.answered)).toEqual([503, 503, 200]);
  });

  it("an outage outlasting every retry never loses the lead: Processed Unverified, ConsentVerificationUnavailable", async () => {
    const org = await newOrganization();
    const apiKey = await withTrustedForm(org);
    const phone = uniquePhone();
    const certificate = await newCertificate({ apiKey, phone, outages: 1000 });
    const { lead, record } = await intakeWithCertificate(org, certificate.url, { Phone: phone }, 90_000);
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      processingReason: "ConsentVerificationUnavailable",
      metadata: { smsConsentStatus: "Unverified" },
    });
    expect(record.certificate).toMatchObject({ outcome: "Unavailable", reason: "HTTP 503" });
  });

  it("a lead left Unverified by an outage is verified again later, with backoff: OptedIn once TrustedForm answers, shown in its timeline", async () => {
    const { org, apiKey, phone, certificate, lead } = await leadLeftUnverifiedByOutage();

    // Not due before its first backoff step; still down when due: the next try moves further out.
    const start = Date.now();
    expect(await reverifyDue(start, org.organizationId)).toEqual({ verified: 0, unverified: 0, retried: 0, gaveUp: 0 });
    expect(await reverifyDue(start + REVERIFY_BACKOFF_MS[0]! + 60_000, org.organizationId)).toEqual({
      verified: 0,
      unverified: 0,
      retried: 1,
      gaveUp: 0,
    });
    expect(await reverifyDue(start + REVERIFY_BACKOFF_MS[0]! + 120_000, org.organizationId)).toEqual({
      verified: 0,
      unverified: 0,
      retried: 0,
      gaveUp: 0,
    });

    // TrustedForm is back: the next due try verifies the certificate.
    await newCertificate({ apiKey, phone, certificateId: certificate.certificateId });
    const later = start + REVERIFY_BACKOFF_MS[0]! + REVERIFY_BACKOFF_MS[1]! + 120_000;
    expect(await reverifyDue(later, org.organizationId)).toEqual({ verified: 1, unverified: 0, retried: 0, gaveUp: 0 });
    expect(await reverifyDue(later + 86_400_000, org.organizationId)).toEqual({
      verified: 0,
      unverified: 0,
      retried: 0,
      gaveUp: 0,
    });

    const verified = (await org.request("GET", `/leads/${lead.id}`)).body;
    expect(verified.metadata).toMatchObject({ smsConsentStatus: "OptedIn", complianceStatus: "Allowed" });
    const record = (await org.request("GET", `/leads/${lead.id}/consent`)).body;
    expect(record.certificate).toMatchObject({
      outcome: "Verified",
      certificate: { certificateId: certificate.certificateId },
    });
    expect(record.consentBasis).toMatchObject({ kind: "Certificate", reference: certificate.certificateId });
    const timeline = await eventsWhen(org, { leadId: lead.id }, (items) =>
      items.some((event) => event.eventType === "LeadConsentVerified"),
    );
    expect(timeline.find((event) => event.eventType === "LeadConsentVerified")).toMatchObject({
      status: "OptedIn",
      leadId: lead.id,
    });
    expect((await claimsOf(certificate.certificateId)).at(-1)!.answered).toBe(200);
  });

  it("a lead whose certificate API stays down through all six re-verifications ends Unverified with the outage as its reason and is not tried again", async () => {
    const { org, apiKey, phone, certificate, lead } = await leadLeftUnverifiedByOutage();

    // Each try is due one backoff step after the one before: five more outages move it on, the sixth gives up.
    let at = Date.now() + REVERIFY_BACKOFF_MS[0]! + 60_000;
    for (let attempt = 1; attempt <= REVERIFY_BACKOFF_MS.length; attempt++) {
      const last = attempt === REVERIFY_BACKOFF_MS.length;
      expect(await reverifyDue(at, org.organizationId)).toEqual({
        verified: 0,
        unverified: 0,
        retried: last ? 0 : 1,
        gaveUp: last ? 1 : 0,
      });
      at += (REVERIFY_BACKOFF_MS[attempt] ?? 0) + 60_000;
    }
    const claimsWhenGivenUp = (await claimsOf(certificate.certificateId)).length;

    // TrustedForm is back, but the lead left the schedule: a day later nothing is tried and nothing is claimed.
    await newCertificate({ apiKey, phone, certificateId: certificate.certificateId });
    expect(await reverifyDue(at + 86_400_000, org.organizationId)).toEqual({
      verified: 0,
      unverified: 0,
      retried: 0,
      gaveUp: 0,
    });
    expect((await claimsOf(certificate.certificateId)).length).toBe(claimsWhenGivenUp);

    const stored = (await org.request("GET", `/leads/${lead.id}`)).body;
    expect(stored).toMatchObject({
      processingReason: "ConsentVerificationUnavailable",
      metadata: { smsConsentStatus: "Unverified" },
    });
    const record = (await org.request("GET", `/leads/${lead.id}/consent`)).body;
    expect(record.certificate).toMatchObject({
      outcome: "Unavailable",
      reason: expect.stringContaining(`(still, after ${REVERIFY_BACKOFF_MS.length} more attempts over a day)`),
    });
  });
});

describe("Jornaya LeadiD", () => {
  /** Posts a lead with a LeadiD token (no TrustedForm URL) and waits until it is processed. */
  async function intakeWithToken(org: TestOrganization, token: string, timeoutMs?: number) {
    const source = await newSource(org);
    const created = await intakeByQuery(source, { Phone: uniquePhone(), JornayaLeadId: token });
    expect(created.status).toBe(201);
    const lead = await waitForLead(org, created.body.id, undefined, timeoutMs);
    const record = await org.request("GET", `/leads/${lead.id}/consent`);
    expect(record.status).toBe(200);
    return { lead, record: record.body };
  }
  const leadiDEvidence = (record: any) => record.consentEvents.find((event: any) => event.kind === "LeadiDToken");

  it("without a Jornaya account the token is kept, marked not verified, and nothing is sent to Jornaya", async () => {
    const org = await newOrganization();
    const token = await newLeadiDToken({ accountCode: randomUUID() });
    const { record } = await intakeWithCertificate(org, "https://cert.example.com/none", {
      Phone: uniquePhone(),
      JornayaLeadId: token,
    });
    expect(leadiDEvidence(record)).toMatchObject({
      kind: "LeadiDToken",
      text: token,
      outcome: null,
      reason: expect.stringContaining("not verified"),
    });
    expect(record.smsConsentStatus).toBe("Unverified");
    expect(await leadiDRequestsOf(token)).toEqual([]);
  });

  it("an authentic token of the organization's account opts the lead in: the documented Authenticate request, the token as the basis", async () => {
    const org = await newOrganization();
    const accountCode = await withJornaya(org);
    const token = await newLeadiDToken({ accountCode });
    const { lead, record } = await intakeWithToken(org, token);
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      metadata: { smsConsentStatus: "OptedIn", complianceStatus: "Allowed" },
    });
    expect(leadiDEvidence(record)).toMatchObject({
      kind: "LeadiDToken",
      text: token,
      outcome: "Verified",
      reason: null,
    });
    expect(record.consentBasis).toMatchObject({ kind: "Certificate", reference: token, evidenceId: "LEADID" });
    expect(await leadiDRequestsOf(token)).toEqual([
      { method: "GET", path: "/Authenticate", query: { lac: accountCode, id: token }, body: "", answered: 200 },
    ]);
  });

  it("a token Jornaya does not authenticate (expired, over-queried, opted out, or not its own) leaves the lead Unverified", async () => {
    const org = await newOrganization();
    const accountCode = await withJornaya(org);
    const token = await newLeadiDToken({ accountCode, state: "not-authentic" });
    const { lead, record } = await intakeWithToken(org, token);
    expect(lead.metadata.smsConsentStatus).toBe("Unverified");
    expect(leadiDEvidence(record)).toMatchObject({
      outcome: "NotFound",
      reason: expect.stringContaining("does not authenticate"),
    });
    expect(record.consentBasis).toBeNull();
  });

  it("a token that is not 36 characters is never sent to Jornaya: NotFound, Unverified", async () => {
    const org = await newOrganization();
    await withJornaya(org);
    const { lead, record } = await intakeWithToken(org, "not-a-leadid-token");
    expect(lead.metadata.smsConsentStatus).toBe("Unverified");
    expect(leadiDEvidence(record)).toMatchObject({
      outcome: "NotFound",
      reason: expect.stringContaining("36 characters"),
    });
    expect(await leadiDRequestsOf("not-a-leadid-token")).toEqual([]);
  });

  it("an account code Jornaya does not know is refused: Unverified with the reason", async () => {
    const org = await newOrganization();
    await withJornaya(org);
    const token = await newLeadiDToken({ accountCode: randomUUID() });
    const { lead, record } = await intakeWithToken(org, token);
    expect(lead.metadata.smsConsentStatus).toBe("Unverified");
    expect(leadiDEvidence(record)).toMatchObject({ outcome: "Refused", reason: expect.stringContaining("HTTP 401") });
  });

  it("an outage is retried with the lead waiting, then verified once Jornaya answers", async () => {
    const org = await newOrganization();
    const accountCode = await withJornaya(org);
    const token = await newLeadiDToken({ accountCode, outages: 2 });
    const { lead } = await intakeWithToken(org, token, 60_000);
    expect(lead).toMatchObject({
      processingStatus: "Processed",
      processingReason: null,
      metadata: { smsConsentStatus: "OptedIn" },
    });
    expect((await leadiDRequestsOf(token)).map((request) => request.answered)).toEqual([503, 503, 200]);
  });
});

describe("PUT /consent/settings", () => {
  it("stores the TrustedForm key as a secret: reads show only its first characters", async () => {
    const org = await newOrganization();
    const apiKey = await withTrustedForm(org);
    const read = await org.request("GET", "/consent/settings");
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      trustedForm: { apiKeyPreview: `${apiKey.slice(0, 4)}…` },
      jornaya: null,
      frequencyCaps: { smsPerDay: null, callsPerDay: null },
      modifiedAt: expect.any(String),
    });
    expect(JSON.stringify(read.body)).not.toContain(apiKey);
    const member = await org.request("PUT", "/consent/settings", {
      token: org.memberToken,
      body: { trustedForm: null, jornaya: null },
    });
    expect(member.status).toBe(403);
  });

  it("stores the Jornaya account code as a secret too: reads show only its first characters", async () => {
    const org = await newOrganization();
    const accountCode = await withJornaya(org);
    const read = await org.request("GET", "/consent/settings");
    expect(read.status).toBe(200);
    expect(read.body).toEqual({
      trustedForm: null,
      jornaya: { accountCodePreview: `${accountCode.slice(0, 4)}…` },
      frequencyCaps: { smsPerDay: null, callsPerDay: null },
      modifiedAt: expect.any(String),
    });
    expect(JSON.stringify(read.body)).not.toContain(accountCode);
  });

  it("keeps what a PUT leaves out: new caps keep both secrets, null removes one account, a short code shows nothing", async () => {
    const org = await newOrganization();
    const apiKey = await withTrustedForm(org);
    const accountCode = await withJornaya(org, { keepTrustedForm: true });
    const caps = await org.request("PUT", "/consent/settings", {
      body: { frequencyCaps: { smsPerDay: 5, callsPerDay: null } },
    });
    expect(caps.status).toBe(200);
    expect(caps.body).toMatchObject({
      trustedForm: { apiKeyPreview: `${apiKey.slice(0, 4)}…` },
      jornaya: { accountCodePreview: `${accountCode.slice(0, 4)}…` },
      frequencyCaps: { smsPerDay: 5, callsPerDay: null },
    });
    const removed = await org.request("PUT", "/consent/settings", { body: { jornaya: null } });
    expect(removed.body).toMatchObject({
      trustedForm: { apiKeyPreview: `${apiKey.slice(0, 4)}…` },
      jornaya: null,
      frequencyCaps: { smsPerDay: 5, callsPerDay: null },
    });
    const short = await org.request("PUT", "/consent/settings", { body: { jornaya: { accountCode: "abc" } } });
    expect(short.body.jornaya).toEqual({ accountCodePreview: "…" });
    expect((await org.request("GET", "/consent/settings")).body.jornaya).toEqual({ accountCodePreview: "…" });
  });
});
