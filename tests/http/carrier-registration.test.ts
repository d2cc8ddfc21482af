import { describe, expect, it } from "vitest";
import * as CarrierRegistration from "#core/carrier-registration/index";
import * as Outbound from "#core/messaging/outbound";
import { storedSettingsItem } from "#core/messaging/settings-item";
import {
  buyNumber,
  carrierRequests,
  decideRegistration,
  onCarrier,
  postTelnyxWebhook,
  telnyxEvent,
} from "#tests/helpers/carriers";
import { addNumber, events, queuedOutsideTheStack, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { brandBody, campaignBody, killedThenRetried, sentAtTelnyx, uniqueName } from "#tests/helpers/registration";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { handler as registerBrand } from "#functions/carrier-registration/register-brand";

/**
 * 10DLC registration through the HTTP API against the carriers' ISV APIs (local fakes checking each
 * request as Telnyx and Twilio document it; tests/setup/registration-fakes.ts), walked through approval
 * and rejection, and the gating of senders it feeds.
 */

const TELNYX_BEARER = "Bearer KEYfake0123";
const TWILIO_BASIC = `Basic ${Buffer.from("SK00000000000000000000000000fake:fake-api-key-secret").toString("base64")}`;

async function refresh(org: TestOrganization) {
  const refreshed = await org.request("POST", "/carrier-registration/refresh");
  expect(refreshed.status).toBe(200);
  return refreshed.body;
}

/** A Telnyx organization whose brand and campaign are approved (walked through the fake), answering the campaign. */
async function approvedAtTelnyx(org: TestOrganization): Promise<{ id: string; providerCampaignId: string }> {
  const brand = await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
  expect(brand.status).toBe(201);
  await decideRegistration(brand.body.providerBrandId, { status: "OK", identityStatus: "VERIFIED" });
  expect((await refresh(org)).brand.status).toBe("Approved");
  const campaign = await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() });
  expect(campaign.status).toBe(201);
  await decideRegistration(campaign.body.providerCampaignId, { campaignStatus: "MNO_PROVISIONED" });
  expect((await refresh(org)).campaigns).toEqual([
    expect.objectContaining({ id: campaign.body.id, status: "Approved" }),
  ]);
  return campaign.body;
}

describe("10DLC registration at Telnyx", () => {
  it("submits the brand and campaign as Telnyx documents them, reads approval with the vetting score, and attaches a number", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const number = await buyNumber(org);
    const displayName = uniqueName();

    const brand = await org.request("POST", "/carrier-registration/brand", { body: brandBody(displayName) });
    expect(brand.status).toBe(201);
    expect(brand.body).toMatchObject({
      provider: "telnyx",
      status: "Pending",
      failureReason: null,
      vettingScore: null,
      phone: "+12125550100",
      state: "NY",
      country: "US",
    });
    expect((await org.request("GET", "/carrier-registration/brand")).body).toEqual(brand.body);
    // A pending brand is neither submitted twice (each submission is billed) nor given campaigns.
    expect((await org.request("POST", "/carrier-registration/brand", { body: brandBody(displayName) })).status).toBe(
      409,
    );
    expect((await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() })).status).toBe(409);
    expect((await refresh(org)).brand.status).toBe("Pending");

    await decideRegistration(brand.body.providerBrandId, {
      status: "OK",
      identityStatus: "VETTED_VERIFIED",
      vettingScore: 82,
    });
    expect((await refresh(org)).brand).toMatchObject({
      status: "Approved",
      vettingScore: 82,
      decidedAt: expect.any(String),
    });

    const campaign = await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() });
    expect(campaign.status).toBe(201);
    expect(campaign.body).toMatchObject({ provider: "telnyx", status: "Pending", phoneNumberIds: [] });
    // Numbers join approved campaigns only.
    expect(
      (await org.request("PUT", `/phone-numbers/${number.id}/campaign`, { body: { campaignId: campaign.body.id } }))
        .status,
    ).toBe(409);
    await decideRegistration(campaign.body.providerCampaignId, { campaignStatus: "MNO_PROVISIONED" });
    expect((await refresh(org)).campaigns).toEqual([
      expect.objectContaining({ id: campaign.body.id, status: "Approved" }),
    ]);

    const attached = await org.request("PUT", `/phone-numbers/${number.id}/campaign`, {
      body: { campaignId: campaign.body.id },
    });
    expect(attached.status).toBe(200);
    expect(attached.body.registration).toEqual({
      kind: "TenDlcCampaign",
      campaignId: campaign.body.id,
      status: "Approved",
    });
    expect(
      (await org.request("GET", `/carrier-registration/campaigns/${campaign.body.id}`)).body.phoneNumberIds,
    ).toEqual([number.id]);

    const shape = ({
      method,
      path,
      authorization,
      body,
      answered,
    }: {
      method: string;
      path: string;
      authorization?: string;
      body: unknown;
      answered: unknown;
    }) => ({ method, path, authorization, body, answered });
    expect((await carrierRequests(displayName)).map(shape)).toEqual([
      {
        method: "POST",
        path: "/v2/10dlc/brand",
        authorization: TELNYX_BEARER,
        body: {
          // Our submission's id, so a retry after a crash finds this brand at Telnyx instead of paying for another.
          referenceId: expect.stringMatching(/^[0-9A-Z]{26}$/),
          // Telnyx posts the brand's status events here (POST /webhooks/telnyx/registration).
          webhookURL: expect.stringMatching(/\/webhooks\/telnyx\/registration$/),
          entityType: "PRIVATE_PROFIT",
          displayName,
          companyName: `${displayName} LLC`,
          ein: "12-3456789",
          phone: "+12125550100",
          email: "compliance@acme-roofing.example",
          website: "https://acme-roofing.example",
          street: "1 Main St",
          city: "New York",
          state: "NY",
          postalCode: "10001",
          country: "US",
          vertical: "CONSTRUCTION",
        },
        answered: 200,
      },
      // The second submission was refused here, before Telnyx.
    ]);
    const reads = (await carrierRequests(brand.body.providerBrandId)).map(({ method, path, answered }) => ({
      method,
      path,
      answered,
    }));
    expect(reads).toEqual([
      { method: "GET", path: `/v2/10dlc/brand/${brand.body.providerBrandId}`, answered: 200 },
      { method: "GET", path: `/v2/10dlc/brand/${brand.body.providerBrandId}`, answered: 200 },
      { method: "GET", path: `/v2/10dlc/brand/${brand.body.providerBrandId}/externalVetting`, answered: 200 },
      { method: "POST", path: "/v2/10dlc/campaignBuilder", answered: 200 },
    ]);
    const [builder] = await carrierRequests("/v2/10dlc/campaignBuilder").then((all) =>
      all.filter((entry) => JSON.stringify(entry.body).includes(brand.body.providerBrandId)),
    );
    const sent = campaignBody();
    expect(shape(builder!)).toEqual({
      method: "POST",
      path: "/v2/10dlc/campaignBuilder",
      authorization: TELNYX_BEARER,
      body: {
        brandId: brand.body.providerBrandId,
        webhookURL: expect.stringMatching(/\/webhooks\/telnyx\/registration$/),
        usecase: "CUSTOMER_CARE",
        description: sent.description,
        messageFlow: sent.messageFlow,
        helpMessage: sent.helpMessage,
        optoutMessage: sent.optOutMessage,
        sample1: sent.sampleMessages[0],
        sample2: sent.sampleMessages[1],
        embeddedLink: false,
        embeddedPhone: false,
        subscriberOptin: true,
        subscriberOptout: true,
        subscriberHelp: true,
      },
      answered: 200,
    });
    const assignment = (await carrierRequests("/v2/10dlc/phone_number_campaigns")).filter((entry) =>
      JSON.stringify(entry.body).includes(number.phoneNumber),
    );
    expect(assignment.map(shape)).toEqual([
      {
        method: "POST",
        path: "/v2/10dlc/phone_number_campaigns",
        authorization: TELNYX_BEARER,
        body: { phoneNumber: number.phoneNumber, campaignId: campaign.body.providerCampaignId },
        answered: 200,
      },
    ]);
  });

  it("a rejected brand says why and may be submitted again; a rejected campaign says why", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const first = await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    await decideRegistration(first.body.providerBrandId, {
      status: "REGISTRATION_FAILED",
      failureReasons: "The EIN does not match the legal name.",
    });
    expect((await refresh(org)).brand).toMatchObject({
      status: "Rejected",
      failureReason: "The EIN does not match the legal name.",
    });
    expect((await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() })).status).toBe(409);

    const resubmission = { ...brandBody(uniqueName()), legalName: "Acme Roofing Holdings LLC" };
    const second = await org.request("POST", "/carrier-registration/brand", {
      body: resubmission,
      headers: { "idempotency-key": "brand-resubmission" },
    });
    expect(second.status).toBe(201);
    // A retried request (lost answer) is answered again, not submitted and billed a second time.
    const retried = await org.request("POST", "/carrier-registration/brand", {
      body: resubmission,
      headers: { "idempotency-key": "brand-resubmission" },
    });
    expect(retried).toMatchObject({ status: 201, body: second.body });
    expect(
      (await carrierRequests(resubmission.displayName)).filter((entry) => entry.path === "/v2/10dlc/brand"),
    ).toHaveLength(1);
    expect(second.body).toMatchObject({
      status: "Pending",
      failureReason: null,
      legalName: "Acme Roofing Holdings LLC",
    });
    await decideRegistration(second.body.providerBrandId, { status: "OK", identityStatus: "VERIFIED" });
    expect((await refresh(org)).brand).toMatchObject({ status: "Approved", vettingScore: null });

    const campaign = await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() });
    await decideRegistration(campaign.body.providerCampaignId, {
      campaignStatus: "MNO_REJECTED",
      failureReasons: "Opt-in flow does not show consent to texts.",
    });
    expect((await org.request("POST", "/carrier-registration/refresh")).body.campaigns).toEqual([
      expect.objectContaining({
        id: campaign.body.id,
        status: "Rejected",
        failureReason: "Opt-in flow does not show consent to texts.",
      }),
    ]);
  });

  it("a signed 10DLC event from Telnyx updates the brand and campaign at once (no poll), records carrier_registration.updated, and a forged one is refused", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const brand = await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    expect(brand.status).toBe(201);
    await decideRegistration(brand.body.providerBrandId, { status: "OK", identityStatus: "VERIFIED" });
    const brandEvent = telnyxEvent("10dlc.brand.update", {
      brandId: brand.body.providerBrandId,
      eventType: "BRAND_ADD",
      status: "success",
      type: "TCR_BRAND_UPDATE",
    });
    expect((await postTelnyxWebhook("/webhooks/telnyx/registration", brandEvent, { signature: "forged" })).status).toBe(
      403,
    );
    expect((await org.request("GET", "/carrier-registration/brand")).body.status).toBe("Pending");
    expect((await postTelnyxWebhook("/webhooks/telnyx/registration", brandEvent)).status).toBe(200);
    expect((await org.request("GET", "/carrier-registration/brand")).body.status).toBe("Approved");

    const campaign = await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() });
    await decideRegistration(campaign.body.providerCampaignId, {
      campaignStatus: "TCR_FAILED",
      failureReasons: "Sample messages do not name the business.",
    });
    const campaignEvent = telnyxEvent("10dlc.campaign.update", {
      campaignId: campaign.body.providerCampaignId,
      brandId: brand.body.providerBrandId,
      type: "TELNYX_EVENT",
      status: "TCR_FAILED",
    });
    expect((await postTelnyxWebhook("/webhooks/telnyx/registration", campaignEvent)).status).toBe(200);
    expect((await org.request("GET", `/carrier-registration/campaigns/${campaign.body.id}`)).body).toMatchObject({
      status: "Rejected",
      failureReason: "Sample messages do not name the business.",
    });
    // An event about a registration of no organization here is acknowledged and changes nothing.
    const unknown = telnyxEvent("10dlc.brand.update", { brandId: crypto.randomUUID(), type: "TCR_BRAND_UPDATE" });
    expect((await postTelnyxWebhook("/webhooks/telnyx/registration", unknown)).status).toBe(200);

    const updates = await events(org, { eventType: "CarrierRegistrationUpdated" });
    expect(
      updates.map((event: { relatedEntityType: string; statusReason: string }) => [
        event.relatedEntityType,
        event.statusReason,
      ]),
    ).toEqual([
      ["TenDlcCampaign", "Rejected"],
      ["TenDlcBrand", "Approved"],
    ]);
    const types = await org.request("GET", "/webhook-event-types");
    expect(types.body.items.map((item: { type: string }) => item.type)).toContain("carrier_registration.updated");
  });

  it("refuses an invalid brand with a 400 naming each field, and reads 404 before any brand", async () => {
    const org = await newOrganization();
    expect((await org.request("GET", "/carrier-registration/brand")).status).toBe(404);
    const refused = await org.request("POST", "/carrier-registration/brand", {
      body: { ...brandBody(uniqueName()), ein: "12345", website: "acme" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual(["/ein", "/website"]);
  });
});

describe("10DLC registration at Twilio (TrustHub and A2P Messaging)", () => {
  it("builds the customer profile and A2P profile, registers the brand, then a Messaging Service campaign, as Twilio documents them", async () => {
    const org = await newOrganization();
    await onCarrier(org, "twilio");
    const displayName = uniqueName();
    const brand = await org.request("POST", "/carrier-registration/brand", { body: brandBody(displayName) });
    expect(brand.status).toBe(201);
    expect(brand.body).toMatchObject({
      provider: "twilio",
      status: "Pending",
      providerBrandId: expect.stringMatching(/^BN[0-9a-f]{32}$/),
    });

    // This brand's requests among every organization's (other test files register Twilio brands at the same time):
    // its brand registration names its two bundles, whose requests name the end users assigned to them.
    const form = (body: unknown) => Object.fromEntries(body as [string, string][]);
    const all = [
      ...(await carrierRequests("/trusthub/v1/")),
      ...(await carrierRequests("/messaging/v1/a2p/BrandRegistrations")),
    ].sort((a, b) => a.at - b.at);
    const registration = all.find((entry) => entry.answeredSid === brand.body.providerBrandId)!;
    const bundles = [form(registration.body).CustomerProfileBundleSid!, form(registration.body).A2PProfileBundleSid!];
    const assigned = all
      .filter((entry) => bundles.some((bundle) => entry.path.includes(`${bundle}/EntityAssignments`)))
      .map((entry) => form(entry.body).ObjectSid);
    const flow = all.filter(
      (entry) =>
        entry === registration ||
        bundles.some((bundle) => entry.path.includes(bundle) || entry.answeredSid === bundle) ||
        (entry.path === "/trusthub/v1/EndUsers" && assigned.includes(entry.answeredSid)),
    );
    expect(flow.every((entry) => entry.authorization === TWILIO_BASIC && entry.answered !== 422)).toBe(true);
    expect(flow.map((entry) => `${entry.method} ${entry.path.replace(/(BU|IT)[0-9a-f]{32}/g, "$1…")}`)).toEqual([
      "POST /trusthub/v1/EndUsers",
      "POST /trusthub/v1/CustomerProfiles",
      "POST /trusthub/v1/CustomerProfiles/BU…/EntityAssignments",
      "POST /trusthub/v1/CustomerProfiles/BU…",
      "POST /trusthub/v1/EndUsers",
      "POST /trusthub/v1/TrustProducts",
      "POST /trusthub/v1/TrustProducts/BU…/EntityAssignments",
      "POST /trusthub/v1/TrustProducts/BU…/EntityAssignments",
      "POST /trusthub/v1/TrustProducts/BU…",
      "POST /messaging/v1/a2p/BrandRegistrations",
    ]);
    const business = form(flow[0]!.body);
    expect(business.Type).toBe("customer_profile_business_information");
    expect(JSON.parse(business.Attributes!)).toEqual({
      business_name: `${displayName} LLC`,
      business_identity: "direct_customer",
      business_type: "Corporation",
      business_industry: "CONSTRUCTION",
      business_registration_identifier: "EIN",
      business_registration_number: "12-3456789",
      business_regions_of_operation: "USA_AND_CANADA",
      website_url: "https://acme-roofing.example",
    });
    expect(form(flow[1]!.body)).toEqual({
      // The submission's id first: a retry after a crash lists customer profiles by this name.
      FriendlyName: expect.stringMatching(new RegExp(`^[0-9A-Z]{26} ${displayName}$`)),
      Email: "compliance@acme-roofing.example",
      PolicySid: "RNdfbf3fae0e1107f8aded0e7cead80bf5",
    });
    expect(form(flow[3]!.body)).toEqual({ Status: "pending-review" });
    expect(form(flow[5]!.body)).toEqual({
      FriendlyName: `${displayName} A2P`,
      Email: "compliance@acme-roofing.example",
      PolicySid: "RNb0d4771c2c98518d916a3d4cd70a8f8b",
    });
    expect(Object.keys(form(flow[9]!.body))).toEqual(["CustomerProfileBundleSid", "A2PProfileBundleSid"]);

    await decideRegistration(brand.body.providerBrandId, { status: "APPROVED", brand_score: 77 });
    expect((await refresh(org)).brand).toMatchObject({ status: "Approved", vettingScore: 77 });

    const campaign = await org.request("POST", "/carrier-registration/campaigns", {
      body: { ...campaignBody(), hasEmbeddedLinks: true },
    });
    expect(campaign.status).toBe(201);
    expect(campaign.body.providerCampaignId).toMatch(/^MG[0-9a-f]{32}\/QE[0-9a-f]{32}$/);
    const [service] = campaign.body.providerCampaignId.split("/");
    const usa2p = (await carrierRequests(`/messaging/v1/Services/${service}/Compliance/Usa2p`))[0]!;
    const sent = campaignBody();
    expect({ method: usa2p.method, authorization: usa2p.authorization, body: usa2p.body }).toEqual({
      method: "POST",
      authorization: TWILIO_BASIC,
      body: [
        ["BrandRegistrationSid", brand.body.providerBrandId],
        ["Description", sent.description],
        ["MessageFlow", sent.messageFlow],
        ["MessageSamples", sent.sampleMessages[0]],
        ["MessageSamples", sent.sampleMessages[1]],
        ["UsAppToPersonUsecase", "CUSTOMER_CARE"],
        ["HasEmbeddedLinks", "true"],
        ["HasEmbeddedPhone", "false"],
        ["OptOutMessage", sent.optOutMessage],
        ["HelpMessage", sent.helpMessage],
      ],
    });

    await decideRegistration(campaign.body.providerCampaignId, {
      campaign_status: "FAILED",
      errors: [{ description: "Sample messages do not match the use case." }],
    });
    expect((await refresh(org)).campaigns).toEqual([
      expect.objectContaining({ status: "Rejected", failureReason: "Sample messages do not match the use case." }),
    ]);
  });
  // After the test above: it reads every TrustHub request the fake received.
  it("a brand submission killed between Twilio and our write: the retry finds the brand registration of the customer profile named by the submission; one registration", async () => {
    const org = await newOrganization();
    await onCarrier(org, "twilio");
    const displayName = uniqueName();
    const retry = await killedThenRetried(org, "/carrier-registration/brand", registerBrand, brandBody(displayName));

    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ provider: "twilio", status: "Pending", displayName });
    // One business, one customer profile: the retry started no second TrustHub flow, so no second brand registration.
    expect((await carrierRequests(displayName)).filter((entry) => entry.path === "/trusthub/v1/EndUsers").length).toBe(
      2,
    ); // business information, A2P profile
    expect(
      (await carrierRequests(displayName))
        .filter((entry) => entry.path === "/trusthub/v1/CustomerProfiles")
        .map((entry) => entry.answered),
    ).toEqual([201]);
    expect(String(retry.body.providerBrandId)).toMatch(/^BN[0-9a-f]{32}$/);
  });
});

describe("the simulator's registry (npm start)", () => {
  it("the poll (carrierRegistrationPoll) decides pending registrations without anyone asking", async () => {
    const org = await newOrganization();
    expect(
      (await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) })).body.status,
    ).toBe("Pending");
    const run = await CarrierRegistration.refreshPending();
    expect(run.organizations).toBeGreaterThanOrEqual(1);
    expect((await org.request("GET", "/carrier-registration/brand")).body).toMatchObject({
      status: "Approved",
      vettingScore: 75,
      checkedAt: expect.any(String),
    });
  });

  it("approves at the first refresh, and rejects a brand whose display name says so", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    await org.request("POST", "/carrier-registration/brand", { body: brandBody(uniqueName()) });
    expect((await refresh(org)).brand).toMatchObject({ provider: "simulator", status: "Approved", vettingScore: 75 });
    const campaign = await org.request("POST", "/carrier-registration/campaigns", { body: campaignBody() });
    expect((await refresh(org)).campaigns[0].status).toBe("Approved");
    expect(
      (await org.request("PUT", `/phone-numbers/${number.id}/campaign`, { body: { campaignId: campaign.body.id } }))
        .body.registration.status,
    ).toBe("Approved");

    const other = await newOrganization();
    await other.request("POST", "/carrier-registration/brand", { body: brandBody("Rejected Roofing") });
    expect((await refresh(other)).brand).toMatchObject({
      status: "Rejected",
      failureReason: expect.stringContaining("rejected"),
    });
  });
});

describe("gating: where registration is required, only numbers on an approved campaign send", () => {
  it("refuses a send no registered number can carry (422), routes to the registered number of the pool, and never hands the carrier an unregistered sender", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx", { requireRegisteredSenders: true });
    const registered = await buyNumber(org);
    const unregistered = await buyNumber(org);
    const to = randomNumber("917");

    const none = await send(org, { to, body: "Your quote is ready." });
    expect(none.status).toBe(422);
    expect(none.body.detail).toMatch(/approved 10DLC campaign/);

    const campaign = await approvedAtTelnyx(org);
    expect(
      (await org.request("PUT", `/phone-numbers/${registered.id}/campaign`, { body: { campaignId: campaign.id } }))
        .status,
    ).toBe(200);
    const chosen = await send(org, { to, body: "Your quote is ready.", fromPhoneNumberId: unregistered.id });
    expect(chosen.status).toBe(422);
    expect(chosen.body.detail).toContain(unregistered.phoneNumber);

    expect(await sentAtTelnyx(org, to, "Your quote is ready.")).toEqual({
      fromPhoneNumberId: registered.id,
      froms: [registered.phoneNumber],
    });
  });

  it("a message accepted before its number's campaign was suspended fails without reaching the carrier", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx", { requireRegisteredSenders: true });
    const number = await buyNumber(org);
    const campaign = await approvedAtTelnyx(org);
    await org.request("PUT", `/phone-numbers/${number.id}/campaign`, { body: { campaignId: campaign.id } });
    const to = randomNumber("917");
    const queued = await queuedOutsideTheStack(org, to, "Your inspection is booked.");

    // The carriers suspend the campaign; the refresh copies it onto the number.
    await decideRegistration(campaign.providerCampaignId, {
      campaignStatus: "TCR_SUSPENDED",
      failureReasons: "Campaign suspended by T-Mobile.",
    });
    expect((await refresh(org)).campaigns[0]).toMatchObject({
      status: "Rejected",
      failureReason: "Campaign suspended by T-Mobile.",
    });
    expect((await org.request("GET", `/phone-numbers/${number.id}`)).body.registration).toEqual({
      kind: "TenDlcCampaign",
      campaignId: campaign.id,
      status: "Rejected",
    });

    // This process dispatches as a consumer instance would; it read the settings before the PUT made Telnyx the carrier.
    storedSettingsItem.forget(org.organizationId);
    await Outbound.dispatch(org.organizationId, queued);
    const failed = await waitForMessage(org, queued.id);
    expect(failed).toMatchObject({ status: "Failed", errorCode: "SenderNotRegistered" });
    expect((await carrierRequests(to)).filter((entry) => entry.path === "/v2/messages")).toEqual([]);
    expect((await send(org, { to, body: "Still there?" })).status).toBe(422);
  });
});
