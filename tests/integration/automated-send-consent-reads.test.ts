import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executeAction, type ActionContext } from "#core/automations/runs/actions";
import { db } from "#core/db/client";
import { readyToText } from "#tests/helpers/automations";
import { validCertificate } from "#tests/helpers/consent";
import { intakeByQuery, newSource, waitForLead } from "#tests/helpers/leads";
import { randomNumber } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/** Reads of a lead's consent attributes (core/leads/consent.ts `leadConsentState`) made by this process. */
let consentReads = 0;

beforeAll(() => {
  db().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { ExpressionAttributeNames?: Record<string, string> };
      if (Object.values(input.ExpressionAttributeNames ?? {}).includes("consentPolicy")) consentReads++;
      return next(args);
    },
    { step: "initialize", name: "countConsentReadsForTests" },
  );
});

afterAll(() => {
  db().middlewareStack.remove("countConsentReadsForTests");
});

describe("an automated send reads the lead's consent once", () => {
  it("a SendSms step decides the basis and the message records that same basis, without reading the lead's consent again", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const phone = randomNumber();
    const certificateUrl = await validCertificate(org, phone);
    const source = await newSource(org);
    const created = await intakeByQuery(source, { Phone: phone, CertifiedFormUrl: certificateUrl });
    const lead = await waitForLead(org, created.body.id);
    expect(lead.metadata.smsConsentStatus).toBe("OptedIn");

    const effectId = randomUUID();
    const context = {
      run: {
        id: "01RUN",
        organizationId: org.organizationId,
        automationId: "01AUTOMATION",
        automationName: "Consent reads",
        leadId: lead.id,
        trigger: { type: "Manual", eventId: null },
      },
      step: { seq: 1, nodeId: "send", attempts: 0 },
      action: { id: "send", type: "SendSms", settings: { body: "Your quote is ready." } },
      lead,
      organization: { name: "Consent reads", timeZone: "UTC" },
      now: Date.now(),
      effectId,
    } as unknown as ActionContext;

    consentReads = 0;
    const outcome = await executeAction(context);
    expect(outcome.kind === "failed" ? outcome.error : outcome.kind).not.toBe("skipped");
    expect(consentReads).toBe(1);
    const message = (await org.request("GET", `/messages/${(outcome.output as { messageId: string }).messageId}`)).body;
    expect(message.consentBasis).toMatchObject({ kind: "Certificate" });
  });
});
