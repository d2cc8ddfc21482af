import { describe, expect, it } from "vitest";
import { buyNumber, carrierRequests, decideRegistration, onCarrier } from "#tests/helpers/carriers";
import { events, randomNumber, send } from "#tests/helpers/messaging";
import { brandBody, killedThenRetried, sentAtTelnyx, uniqueName } from "#tests/helpers/registration";
import { handler as submitTollFree } from "#functions/carrier-registration/submit-toll-free";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

/**
 * Toll-free verification through the HTTP API against the carriers' toll-free APIs (local fakes checking each
 * request as Telnyx and Twilio document them; tests/setup/registration-fakes.ts), walked to approval and rejection,
 * and the gating of a toll-free sender it feeds where registration is required.
 */

const TELNYX_BEARER = "Bearer KEYfake0123";
const TWILIO_BASIC = `Basic ${Buffer.from("SK00000000000000000000000000fake:fake-api-key-secret").toString("base64")}`;

const verificationBody = (useCaseSummary = "Acme Roofing texts homeowners who asked for a quote on its website.") => ({
  useCase: "CUSTOMER_CARE",
  useCaseSummary,
  productionMessageSample: "Acme Roofing: Sam will visit Thursday at 2pm for your estimate. Reply STOP to opt out.",
  optInType: "WEB_FORM",
  optInImageUrls: ["https://acme-roofing.example/quote-form.png"],
  messageVolume: "1,000",
  contactFirstName: "Lee",
  contactLastName: "Morgan",
});

const path = (number: { id: string }) => `/phone-numbers/${number.id}/toll-free-verification`;

async function refresh(org: TestOrganization) {
  const refreshed = await org.request("POST", "/carrier-registration/refresh");
  expect(refreshed.status).toBe(200);
  return refreshed.body;
}

/** A toll-free number bought at Twilio by number (its `PN…` sid is what Twilio verifies). */
async function twilioTollFree(org: TestOrganization): Promise<{ id: string; phoneNumber: string }> {
  const bought = await org.request("POST", "/phone-numbers", {
    body: { phoneNumber: randomNumber("888"), purchase: true, capabilities: ["sms"] },
  });
  expect(bought.status).toBe(201);
  return bought.body;
}

describe("toll-free verification at Telnyx", () => {
  it("submits the number with the brand's business as Telnyx documents it; Pending refuses its sends, Verified lets it send; a long code still needs its campaign", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx", { requireRegisteredSenders: true });
    const tollFree = await buyNumber(org, "888");
    const longCode = await buyNumber(org, "212");
    const to = randomNumber("917");

    // No brand yet: the verification submits the brand's business, so there is nothing to submit.
    const early = await org.request("POST", path(tollFree), { body: verificationBody() });
    expect(early.status).toBe(409);
    expect(early.body.detail).toMatch(/brand first/);
    const displayName = uniqueName();
    expect((await org.request("POST", "/carrier-registration/brand", { body: brandBody(displayName) })).status).toBe(
      201,
    );

    const notTollFree = await org.request("POST", path(longCode), { body: verificationBody() });
    expect(notTollFree.status).toBe(422);
    expect(notTollFree.body.detail).toMatch(/not a toll-free number/);
    const invalid = await org.request("POST", path(tollFree), {
      body: { ...verificationBody(), optInImageUrls: [], messageVolume: "lots" },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/messageVolume",
      "/optInImageUrls",
    ]);
    expect((await org.request("GET", path(tollFree))).status).toBe(404);

    const headers = { "idempotency-key": `tfv-${tollFree.id}` };
    const submitted = await org.request("POST", path(tollFree), { body: verificationBody(), headers });
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({
      phoneNumberId: tollFree.id,
      phoneNumber: tollFree.phoneNumber,
      provider: "telnyx",
      providerVerificationId: expect.any(String),
      status: "Pending",
      failureReason: null,
      editAllowed: null,
    });
    // The same request again (a lost answer) is answered again, not submitted twice; another one is a duplicate.
    expect(await org.request("POST", path(tollFree), { body: verificationBody(), headers })).toMatchObject({
      status: 201,
      body: submitted.body,
    });
    const duplicate = await org.request("POST", path(tollFree), { body: verificationBody() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.detail).toMatch(/already Pending/);
    expect((await org.request("GET", path(tollFree))).body).toEqual(submitted.body);

    const submissions = (await carrierRequests(tollFree.phoneNumber)).filter(
      (entry) => entry.path === "/v2/messaging_tollfree/verification/requests",
    );
    expect(
      submissions.map(({ method, authorization, body, answered }) => ({ method, authorization, body, answered })),
    ).toEqual([
      {
        method: "POST",
        authorization: TELNYX_BEARER,
        body: {
          businessName: `${displayName} LLC`,
          corporateWebsite: "https://acme-roofing.example",
          businessAddr1: "1 Main St",
          businessCity: "New York",
          businessState: "NY",
          businessZip: "10001",
          businessContactFirstName: "Lee",
          businessContactLastName: "Morgan",
          businessContactEmail: "compliance@acme-roofing.example",
          businessContactPhone: "+12125550100",
          messageVolume: "1,000",
          phoneNumbers: [{ phoneNumber: tollFree.phoneNumber }],
          useCase: "Customer Care",
          useCaseSummary: verificationBody().useCaseSummary,
          productionMessageContent: verificationBody().productionMessageSample,
          optInWorkflow: `WEB_FORM: ${verificationBody().useCaseSummary}`,
          optInWorkflowImageURLs: [{ url: "https://acme-roofing.example/quote-form.png" }],
          additionalInformation: "",
          businessRegistrationNumber: "12-3456789",
          businessRegistrationType: "EIN",
          businessRegistrationCountry: "US",
        },
        answered: 200,
      },
    ]);

    // Under review, the number does not send: chosen, it is refused saying so; left to choice, there is no sender.
    expect((await org.request("GET", `/phone-numbers/${tollFree.id}`)).body.registration).toEqual({
      kind: "TollFreeVerification",
      campaignId: null,
      status: "Pending",
    });
    const pending = await send(org, { to, body: "Your quote is ready.", fromPhoneNumberId: tollFree.id });
    expect(pending.status).toBe(422);
    expect(pending.body.detail).toContain(
      `${tollFree.phoneNumber} is a toll-free number whose toll-free verification is Pending`,
    );
    expect((await send(org, { to, body: "Your quote is ready." })).status).toBe(422);

    await decideRegistration(submitted.body.providerVerificationId, { verificationStatus: "In Progress" });
    expect((await refresh(org)).tollFreeVerifications).toEqual([
      expect.objectContaining({ phoneNumberId: tollFree.id, status: "Pending" }),
    ]);
    await decideRegistration(submitted.body.providerVerificationId, { verificationStatus: "Verified" });
    expect((await refresh(org)).tollFreeVerifications).toEqual([
      expect.objectContaining({ phoneNumberId: tollFree.id, status: "Approved", decidedAt: expect.any(String) }),
    ]);
    expect((await org.request("GET", `/phone-numbers/${tollFree.id}`)).body.registration).toEqual({
      kind: "TollFreeVerification",
      campaignId: null,
      status: "Approved",
    });

    // Verified, it is the registered number of the pool: a send goes out from it.
    expect(await sentAtTelnyx(org, to, "Your quote is ready.")).toEqual({
      fromPhoneNumberId: tollFree.id,
      froms: [tollFree.phoneNumber],
    });
    // A long code is unaffected: it still needs its approved 10DLC campaign.
    const longCodeSend = await send(org, { to, body: "Still there?", fromPhoneNumberId: longCode.id });
    expect(longCodeSend.status).toBe(422);
    expect(longCodeSend.body.detail).toMatch(/not attached to an approved 10DLC campaign/);

    const updates = await events(org, { eventType: "CarrierRegistrationUpdated" });
    expect(
      updates.map((event: { relatedEntityType: string; relatedEntityId: string; statusReason: string }) => [
        event.relatedEntityType,
        event.relatedEntityId,
        event.statusReason,
      ]),
    ).toContainEqual(["TollFreeVerification", tollFree.id, "Approved"]);
  });

  it("another organization can neither read nor submit a number's verification (404), and an agent cannot submit (403)", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const tollFree = await buyNumber(org, "877");
    await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    expect((await org.request("POST", path(tollFree), { body: verificationBody() })).status).toBe(201);

    const other = await newOrganization();
    await other.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    expect((await other.request("GET", path(tollFree))).status).toBe(404);
    expect((await other.request("POST", path(tollFree), { body: verificationBody() })).status).toBe(404);
    expect(
      (await org.request("POST", path(tollFree), { body: verificationBody(), token: org.agentToken })).status,
    ).toBe(403);
    expect((await org.request("GET", path(tollFree), { token: org.agentToken })).status).toBe(200);
  });
});

describe("toll-free verification at Twilio", () => {
  it("submits the number's PN sid with the brand's customer profile as Twilio documents it; a rejection says why and whether it may be edited, refuses the number's sends, and may be submitted again", async () => {
    const org = await newOrganization();
    await onCarrier(org, "twilio", { requireRegisteredSenders: true });
    const displayName = uniqueName();
    const brand = await org.request("POST", "/carrier-registration/brand", { body: brandBody(displayName) });
    expect(brand.status).toBe(201);
    const tollFree = await twilioTollFree(org);

    const submitted = await org.request("POST", path(tollFree), { body: verificationBody() });
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({
      provider: "twilio",
      status: "Pending",
      providerVerificationId: expect.stringMatching(/^HH[0-9a-f]{32}$/),
    });
    const [created] = (await carrierRequests("/messaging/v1/Tollfree/Verifications")).filter((entry) =>
      JSON.stringify(entry.body).includes(`${displayName} LLC`),
    );
    const profile = (await carrierRequests(brand.body.providerBrandId)).find(
      (entry) =>
        entry.method === "GET" && entry.path === `/messaging/v1/a2p/BrandRegistrations/${brand.body.providerBrandId}`,
    );
    expect(profile).toBeDefined();
    expect({ method: created!.method, authorization: created!.authorization, answered: created!.answered }).toEqual({
      method: "POST",
      authorization: TWILIO_BASIC,
      answered: 201,
    });
    expect(created!.body).toEqual([
      ["TollfreePhoneNumberSid", expect.stringMatching(/^PN[0-9a-f]{32}$/)],
      ["BusinessName", `${displayName} LLC`],
      ["BusinessWebsite", "https://acme-roofing.example"],
      ["NotificationEmail", "compliance@acme-roofing.example"],
      ["UseCaseCategories", "CUSTOMER_CARE"],
      ["UseCaseSummary", verificationBody().useCaseSummary],
      ["ProductionMessageSample", verificationBody().productionMessageSample],
      ["OptInImageUrls", "https://acme-roofing.example/quote-form.png"],
      ["OptInType", "WEB_FORM"],
      ["MessageVolume", "1,000"],
      // The brand's TrustHub customer profile, read from its brand registration.
      ["CustomerProfileSid", expect.stringMatching(/^BU[0-9a-f]{32}$/)],
      ["BusinessStreetAddress", "1 Main St"],
      ["BusinessCity", "New York"],
      ["BusinessStateProvinceRegion", "NY"],
      ["BusinessPostalCode", "10001"],
      ["BusinessCountry", "US"],
      ["BusinessContactFirstName", "Lee"],
      ["BusinessContactLastName", "Morgan"],
      ["BusinessContactEmail", "compliance@acme-roofing.example"],
      ["BusinessContactPhone", "+12125550100"],
      ["BusinessRegistrationNumber", "12-3456789"],
      // Our submission's id: a retry after a crash lists the number's verifications and finds this one by it.
      ["ExternalReferenceId", expect.stringMatching(/^[0-9A-Z]{26}$/)],
    ]);

    await decideRegistration(submitted.body.providerVerificationId, { status: "IN_REVIEW" });
    expect((await refresh(org)).tollFreeVerifications[0].status).toBe("Pending");
    await decideRegistration(submitted.body.providerVerificationId, {
      status: "TWILIO_REJECTED",
      rejection_reason: "Opt-in image does not show consent to texts.",
      error_code: 30513,
      edit_allowed: true,
    });
    expect((await refresh(org)).tollFreeVerifications).toEqual([
      expect.objectContaining({
        status: "Rejected",
        failureReason: "Opt-in image does not show consent to texts.",
        errorCode: "30513",
        editAllowed: true,
      }),
    ]);
    expect((await org.request("GET", `/phone-numbers/${tollFree.id}`)).body.registration).toEqual({
      kind: "TollFreeVerification",
      campaignId: null,
      status: "Rejected",
    });
    const refused = await send(org, { to: randomNumber("917"), body: "Hello", fromPhoneNumberId: tollFree.id });
    expect(refused.status).toBe(422);
    expect(refused.body.detail).toContain("toll-free verification is Rejected");

    // Corrected, it is submitted again and is under review once more.
    const again = await org.request("POST", path(tollFree), {
      body: { ...verificationBody(), optInImageUrls: ["https://acme-roofing.example/consent-checkbox.png"] },
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ status: "Pending", failureReason: null, editAllowed: null });
    expect(again.body.providerVerificationId).not.toBe(submitted.body.providerVerificationId);
  });
});

describe("a toll-free submission killed between the carrier and our write", () => {
  const killed = (org: TestOrganization, number: { id: string }) =>
    killedThenRetried(org, path(number), submitTollFree, verificationBody(), {
      routeKey: "POST /phone-numbers/{phoneNumberId}/toll-free-verification",
      pathParameters: { phoneNumberId: number.id },
    });

  it("Twilio: the retry finds the verification by its ExternalReferenceId; one submission", async () => {
    const org = await newOrganization();
    await onCarrier(org, "twilio");
    const displayName = uniqueName();
    await org.request("POST", "/carrier-registration/brand", { body: brandBody(displayName) });
    const tollFree = await twilioTollFree(org);
    const retry = await killed(org, tollFree);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ provider: "twilio", status: "Pending", phoneNumberId: tollFree.id });
    const submissions = (await carrierRequests("/messaging/v1/Tollfree/Verifications")).filter(
      (entry) => entry.method === "POST" && JSON.stringify(entry.body).includes(`${displayName} LLC`),
    );
    expect(submissions.map((entry) => entry.answered)).toEqual([201]);
    expect((await org.request("GET", path(tollFree))).body.providerVerificationId).toBe(
      retry.body.providerVerificationId,
    );
  });

  it("Telnyx: the retry finds the number's request no stored verification names; one submission", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    const tollFree = await buyNumber(org, "844");
    const retry = await killed(org, tollFree);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ provider: "telnyx", status: "Pending" });
    const submissions = (await carrierRequests(tollFree.phoneNumber)).filter(
      (entry) => entry.method === "POST" && entry.path === "/v2/messaging_tollfree/verification/requests",
    );
    expect(submissions.map((entry) => entry.answered)).toEqual([200]);
  });

  it("Telnyx: the retry of a third submission takes the request it created, not the first one (rejected, no longer stored): only a request created since the submission began is its own", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    const tollFree = await buyNumber(org, "844");
    const rejected: string[] = [];
    // Submitted twice and rejected twice: only the second request stays stored (the number's one verification).
    for (let round = 0; round < 2; round++) {
      const submitted = await org.request("POST", path(tollFree), { body: verificationBody() });
      expect(submitted.status).toBe(201);
      rejected.push(submitted.body.providerVerificationId);
      // Reviewed and rejected days apart in real life: made an hour ago here (the lookup allows seconds of clock skew).
      await decideRegistration(submitted.body.providerVerificationId, {
        verificationStatus: "Rejected",
        reason: "Opt-in image does not show consent to texts.",
        createdAt: new Date(Date.now() - 3_600_000).toISOString(),
      });
      expect((await refresh(org)).tollFreeVerifications).toEqual([
        expect.objectContaining({ phoneNumberId: tollFree.id, status: "Rejected" }),
      ]);
    }
    const retry = await killed(org, tollFree);
    expect(retry.status).toBe(201);
    // Before, it took the first request the carrier listed that was not the stored one: the first, rejected.
    expect(retry.body).toMatchObject({ provider: "telnyx", status: "Pending" });
    expect(rejected).not.toContain(retry.body.providerVerificationId);
    const submissions = (await carrierRequests(tollFree.phoneNumber)).filter(
      (entry) => entry.method === "POST" && entry.path === "/v2/messaging_tollfree/verification/requests",
    );
    expect(submissions.map((entry) => entry.answered)).toEqual([200, 200, 200]);
  });
});

describe("the simulator's toll-free reviewers (npm start)", () => {
  it("approve at the first refresh, and reject a summary that says so", async () => {
    const org = await newOrganization();
    await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    const approved = await org.request("POST", "/phone-numbers", { body: { phoneNumber: randomNumber("855") } });
    const rejected = await org.request("POST", "/phone-numbers", { body: { phoneNumber: randomNumber("866") } });
    expect((await org.request("POST", path(approved.body), { body: verificationBody() })).status).toBe(201);
    expect(
      (
        await org.request("POST", path(rejected.body), {
          body: verificationBody("This summary should be rejected by the simulator's reviewers."),
        })
      ).status,
    ).toBe(201);
    const decided = (await refresh(org)).tollFreeVerifications;
    expect(
      decided.map((verification: { phoneNumberId: string; status: string; editAllowed: boolean | null }) => [
        verification.phoneNumberId,
        verification.status,
        verification.editAllowed,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [approved.body.id, "Approved", null],
        [rejected.body.id, "Rejected", true],
      ]),
    );
  });
});
