import { randomBytes, randomUUID } from "node:crypto";

/**
 * The 10DLC registration part of the carrier fakes (tests/setup/carrier-fakes.ts): Telnyx's
 * `/v2/10dlc/*` and Twilio's TrustHub and Messaging (A2P) APIs, checked field by field as
 * the carriers document them. Registrations start pending; a test decides them through
 * `POST /__fake/registrations/{reference}` (the brand, campaign or toll-free verification
 * reference the API reports: Telnyx brandId/campaignId/verification id, Twilio `BN…`,
 * `MG…/QE…` or `HH…`), whose JSON is merged into what the carrier answers from then on
 * (Telnyx: `status`, `identityStatus`, `failureReasons`, `vettingScore`, `campaignStatus`,
 * `verificationStatus`, `reason`; Twilio: `status`, `failure_reason`, `brand_score`,
 * `campaign_status`, `errors`, `rejection_reason`, `error_code`, `edit_allowed`). Toll-free
 * verifications: Telnyx `/v2/messaging_tollfree/verification/requests`, Twilio
 * `/messaging/v1/Tollfree/Verifications`.
 */

type Reply = (status: number, payload: unknown) => void;
type Mismatch = (detail: string) => void;

export const TWILIO_POLICY_SIDS = {
  customerProfile: "RNdfbf3fae0e1107f8aded0e7cead80bf5",
  a2pProfile: "RNb0d4771c2c98518d916a3d4cd70a8f8b",
};

const TELNYX_BRAND_FIELDS = [
  "entityType",
  "displayName",
  "companyName",
  "ein",
  "phone",
  "email",
  "website",
  "street",
  "city",
  "state",
  "postalCode",
  "country",
  "vertical",
];
const TELNYX_CAMPAIGN_REQUIRED = [
  "brandId",
  "usecase",
  "description",
  "messageFlow",
  "helpMessage",
  "optoutMessage",
  "sample1",
  "sample2",
];
const TELNYX_CAMPAIGN_OPTIONAL = [
  "webhookURL",
  "sample3",
  "sample4",
  "sample5",
  "embeddedLink",
  "embeddedPhone",
  "subscriberOptin",
  "subscriberOptout",
  "subscriberHelp",
];
const END_USER_ATTRIBUTES: Record<string, string[]> = {
  customer_profile_business_information: [
    "business_name",
    "business_identity",
    "business_type",
    "business_industry",
    "business_registration_identifier",
    "business_registration_number",
    "business_regions_of_operation",
    "website_url",
  ],
  us_a2p_messaging_profile_information: ["company_type"],
};

/** Telnyx toll-free verification request fields (`TFVerificationRequest`; the BRN fields required from 17 February 2026). */
const TELNYX_TOLL_FREE_REQUIRED = [
  "businessName",
  "corporateWebsite",
  "businessAddr1",
  "businessCity",
  "businessState",
  "businessZip",
  "businessContactFirstName",
  "businessContactLastName",
  "businessContactEmail",
  "businessContactPhone",
  "messageVolume",
  "phoneNumbers",
  "useCase",
  "useCaseSummary",
  "productionMessageContent",
  "optInWorkflow",
  "optInWorkflowImageURLs",
  "businessRegistrationNumber",
  "businessRegistrationType",
  "businessRegistrationCountry",
];
const TELNYX_TOLL_FREE_OPTIONAL = ["additionalInformation", "businessAddr2", "isvReseller", "webhookUrl"];
/** Twilio `Tollfree/Verifications` create: the required fields, and the optional ones we send. */
const TWILIO_TOLL_FREE_REQUIRED = [
  "BusinessName",
  "BusinessWebsite",
  "NotificationEmail",
  "UseCaseCategories",
  "UseCaseSummary",
  "ProductionMessageSample",
  "OptInImageUrls",
  "OptInType",
  "MessageVolume",
  "TollfreePhoneNumberSid",
];
const TWILIO_TOLL_FREE_OPTIONAL = [
  "CustomerProfileSid",
  "BusinessStreetAddress",
  "BusinessCity",
  "BusinessStateProvinceRegion",
  "BusinessPostalCode",
  "BusinessCountry",
  "BusinessContactFirstName",
  "BusinessContactLastName",
  "BusinessContactEmail",
  "BusinessContactPhone",
  "BusinessRegistrationNumber",
  "ExternalReferenceId",
  "AdditionalInformation",
];
const TOLL_FREE = /^\+18(00|33|44|55|66|77|88)\d{7}$/;

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString("hex")}`;

export function registrationFakes(options: { heldTelnyxNumber: (phoneNumber: string) => boolean }) {
  /** Every brand and campaign by the reference the adapters name it by. */
  const records = new Map<string, Record<string, unknown>>();
  /** Telnyx number → campaign, and Twilio service → number sids. */
  const assignments = new Map<string, string>();
  const bundles = new Map<string, { kind: string; assigned: string[]; status: string; friendlyName: string }>();
  const endUsers = new Set<string>();
  /** Messaging Services by sid, with their friendly names. */
  const services = new Map<string, string>();

  function telnyx(
    method: string,
    path: string,
    body: Record<string, unknown> | undefined,
    reply: Reply,
    mismatch: Mismatch,
    query: URLSearchParams = new URLSearchParams(),
  ): boolean {
    if (path.startsWith("/v2/messaging_tollfree/"))
      return (telnyxTollFree(method, path, body, reply, mismatch, query), true);
    if (!path.startsWith("/v2/10dlc/")) return false;
    if (method === "GET" && path === "/v2/10dlc/brand") {
      // The list's summary (no referenceId), filtered by display name as Telnyx's list filters.
      const displayName = query.get("displayName");
      const listed = [...records.values()].filter(
        (record) => record["brandId"] && (!displayName || record["displayName"] === displayName),
      );
      const summary = ({ brandId, displayName, status, identityStatus }: Record<string, unknown>) => ({
        brandId,
        displayName,
        status,
        identityStatus,
      });
      reply(200, { records: listed.map(summary), page: 1, totalRecords: listed.length });
      return true;
    }
    if (method === "GET" && path === "/v2/10dlc/campaign") {
      if (!query.get("brandId")) return (mismatch("brandId is required"), true);
      const listed = [...records.values()].filter(
        (record) => record["campaignId"] && record["brandId"] === query.get("brandId"),
      );
      reply(200, { records: listed, page: 1, totalRecords: listed.length });
      return true;
    }
    if (method === "POST" && path === "/v2/10dlc/brand") {
      const problem = fieldProblem(body, TELNYX_BRAND_FIELDS, ["referenceId", "webhookURL"]);
      if (problem) return (mismatch(problem), true);
      const brandId = randomUUID();
      records.set(brandId, { brandId, status: "REGISTRATION_PENDING", ...body });
      reply(200, records.get(brandId));
      return true;
    }
    const brand = path.match(/^\/v2\/10dlc\/brand\/([^/]+)(\/externalVetting)?$/);
    if (method === "GET" && brand) {
      const record = records.get(decodeURIComponent(brand[1]!));
      if (!record) return (reply(404, { errors: [{ code: "10005", title: "Resource not found" }] }), true);
      if (brand[2])
        reply(
          200,
          record.vettingScore === undefined
            ? []
            : [{ evpId: "AEGIS", vettingClass: "STANDARD", vettingScore: record.vettingScore }],
        );
      else reply(200, { ...record, vettingScore: undefined });
      return true;
    }
    if (method === "POST" && path === "/v2/10dlc/campaignBuilder") {
      const problem = fieldProblem(body, TELNYX_CAMPAIGN_REQUIRED, TELNYX_CAMPAIGN_OPTIONAL);
      if (problem) return (mismatch(problem), true);
      const owner = records.get(String(body!["brandId"]));
      if (owner?.["status"] !== "OK")
        return (
          reply(400, {
            errors: [
              {
                code: "10015",
                title: "Bad Request",
                detail: "Cannot associate campaign with brand in pending or failed status",
              },
            ],
          }),
          true
        );
      const campaignId = randomUUID();
      records.set(campaignId, { campaignId, campaignStatus: "TCR_PENDING", ...body });
      reply(200, records.get(campaignId));
      return true;
    }
    const campaign = path.match(/^\/v2\/10dlc\/campaign\/([^/]+)$/);
    if (method === "GET" && campaign) {
      const record = records.get(decodeURIComponent(campaign[1]!));
      reply(record ? 200 : 404, record ?? { errors: [{ code: "10005", title: "Resource not found" }] });
      return true;
    }
    if (method === "POST" && path === "/v2/10dlc/phone_number_campaigns") {
      const problem = fieldProblem(body, ["phoneNumber", "campaignId"], []);
      if (problem) return (mismatch(problem), true);
      const phoneNumber = String(body!["phoneNumber"]);
      if (records.get(String(body!["campaignId"]))?.["campaignStatus"] !== "MNO_PROVISIONED")
        return (
          reply(400, { errors: [{ code: "10015", title: "Bad Request", detail: "The campaign is not active" }] }),
          true
        );
      if (!options.heldTelnyxNumber(phoneNumber))
        return (
          reply(404, {
            errors: [{ code: "10005", title: "Resource not found", detail: "Phone number not in the account" }],
          }),
          true
        );
      assignments.set(phoneNumber, String(body!["campaignId"]));
      reply(200, { phoneNumber, campaignId: body!["campaignId"], assignmentStatus: "ASSIGNED" });
      return true;
    }
    mismatch(`no Telnyx 10DLC route ${method} ${path}`);
    return true;
  }

  /**
   * Telnyx toll-free verification: submitted "Waiting For Vendor", listed by number (`{ records, total_records }`),
   * read by id; all answered flat. A test decides one through `/__fake/registrations/{id}` (`verificationStatus`,
   * `reason`).
   */
  function telnyxTollFree(
    method: string,
    path: string,
    body: Record<string, unknown> | undefined,
    reply: Reply,
    mismatch: Mismatch,
    query: URLSearchParams,
  ): void {
    const base = "/v2/messaging_tollfree/verification/requests";
    if (method === "POST" && path === base) {
      const problem = fieldProblem(body, TELNYX_TOLL_FREE_REQUIRED, TELNYX_TOLL_FREE_OPTIONAL);
      if (problem) return mismatch(problem);
      const numbers = body!["phoneNumbers"] as { phoneNumber?: string }[];
      const images = body!["optInWorkflowImageURLs"] as { url?: string }[];
      if (!Array.isArray(numbers) || numbers.length === 0 || !numbers.every((n) => TOLL_FREE.test(n.phoneNumber ?? "")))
        return reply(400, {
          errors: [{ code: "10015", title: "Bad Request", detail: "phoneNumbers: toll-free numbers only" }],
        });
      if (!Array.isArray(images) || !images.every((image) => /^https?:\/\//.test(image.url ?? "")))
        return mismatch("optInWorkflowImageURLs: [{ url }]");
      const id = randomUUID();
      records.set(id, {
        id,
        verificationStatus: "Waiting For Vendor",
        reason: null,
        createdAt: new Date().toISOString(),
        ...body,
      });
      return reply(200, records.get(id));
    }
    if (method === "GET" && path === base) {
      if (!query.get("page") || !query.get("page_size")) return mismatch("page and page_size are required");
      const since = query.get("date_start");
      const listed = [...records.values()].filter(
        (record) =>
          (!since || String(record["createdAt"]) >= since) &&
          Array.isArray(record["phoneNumbers"]) &&
          (record["phoneNumbers"] as { phoneNumber: string }[]).some(
            (number) => !query.get("phone_number") || number.phoneNumber === query.get("phone_number"),
          ),
      );
      return reply(200, { records: listed, total_records: listed.length });
    }
    const one = path.match(/^\/v2\/messaging_tollfree\/verification\/requests\/([^/]+)$/);
    if (method === "GET" && one) {
      const record = records.get(decodeURIComponent(one[1]!));
      return reply(record ? 200 : 404, record ?? { errors: [{ code: "10005", title: "Resource not found" }] });
    }
    mismatch(`no Telnyx toll-free route ${method} ${path}`);
  }

  /** `path` after `/twilio`: `/trusthub/v1/…` or `/messaging/v1/…` (the adapter's hosts under the fake's base URL). */
  function twilio(
    method: string,
    path: string,
    contentType: string | undefined,
    form: URLSearchParams,
    reply: Reply,
    mismatch: Mismatch,
    query: URLSearchParams = new URLSearchParams(),
  ): boolean {
    if (!path.startsWith("/trusthub/") && !path.startsWith("/messaging/")) return false;
    if (method === "POST" && contentType !== "application/x-www-form-urlencoded")
      return (mismatch("form bodies only"), true);
    const post = (required: string[], optional: string[], answer: () => void) => {
      const problem = formProblem(form, required, optional);
      if (problem) mismatch(problem);
      else answer();
      return true;
    };
    if (method === "POST" && path === "/trusthub/v1/EndUsers") {
      return post(["FriendlyName", "Type", "Attributes"], [], () => {
        const wanted = END_USER_ATTRIBUTES[form.get("Type")!];
        if (!wanted) return mismatch(`unknown end user type ${form.get("Type")}`);
        const attributes = JSON.parse(form.get("Attributes")!) as Record<string, unknown>;
        const missing = wanted.filter((name) => !attributes[name]);
        if (missing.length) return mismatch(`Attributes missing ${missing.join(", ")}`);
        const endUser = sid("IT");
        endUsers.add(endUser);
        reply(201, { sid: endUser, type: form.get("Type") });
      });
    }
    if (method === "GET" && path === "/trusthub/v1/CustomerProfiles") {
      const name = query.get("FriendlyName");
      const results = [...bundles]
        .filter(([, stored]) => stored.kind === "CustomerProfiles" && (!name || stored.friendlyName === name))
        .map(([bundleSid, stored]) => ({ sid: bundleSid, friendly_name: stored.friendlyName, status: stored.status }));
      reply(200, { results, meta: { key: "results", page: 0 } });
      return true;
    }
    if (method === "GET" && path === "/messaging/v1/a2p/BrandRegistrations") {
      const data = [...records.values()].filter((record) => String(record["sid"] ?? "").startsWith("BN"));
      reply(200, { data, meta: { key: "data", page: 0 } });
      return true;
    }
    if (method === "GET" && path === "/messaging/v1/Services") {
      const listed = [...services].map(([serviceSid, friendlyName]) => ({
        sid: serviceSid,
        friendly_name: friendlyName,
      }));
      reply(200, { services: listed, meta: { key: "services", page: 0 } });
      return true;
    }
    const bundle = path.match(
      /^\/trusthub\/v1\/(CustomerProfiles|TrustProducts)(?:\/(BU[0-9a-f]{32}))?(\/EntityAssignments)?$/,
    );
    if (method === "POST" && bundle) {
      const [, kind, bundleSid, assignment] = bundle;
      if (!bundleSid) {
        return post(["FriendlyName", "Email", "PolicySid"], [], () => {
          const policy =
            kind === "CustomerProfiles" ? TWILIO_POLICY_SIDS.customerProfile : TWILIO_POLICY_SIDS.a2pProfile;
          if (form.get("PolicySid") !== policy) return mismatch(`PolicySid of ${kind} must be ${policy}`);
          const created = sid("BU");
          bundles.set(created, { kind: kind!, assigned: [], status: "draft", friendlyName: form.get("FriendlyName")! });
          reply(201, { sid: created, status: "draft", policy_sid: policy });
        });
      }
      const stored = bundles.get(bundleSid);
      if (!stored || stored.kind !== kind)
        return (reply(404, { code: 20404, message: "Resource not found", status: 404 }), true);
      if (assignment) {
        return post(["ObjectSid"], [], () => {
          const object = form.get("ObjectSid")!;
          if (!endUsers.has(object) && !bundles.has(object)) return mismatch(`unknown ObjectSid ${object}`);
          stored.assigned.push(object);
          reply(201, { sid: sid("BV"), object_sid: object });
        });
      }
      return post(["Status"], [], () => {
        if (form.get("Status") !== "pending-review") return mismatch("Status must be pending-review");
        const needsProfile =
          kind === "TrustProducts" &&
          !stored.assigned.some((object) => bundles.get(object)?.kind === "CustomerProfiles");
        if (stored.assigned.length === 0 || needsProfile)
          return reply(400, { code: 22209, message: "The bundle is missing required entities", status: 400 });
        stored.status = "pending-review";
        reply(200, { sid: bundleSid, status: "pending-review" });
      });
    }
    if (method === "POST" && path === "/messaging/v1/a2p/BrandRegistrations") {
      return post(["CustomerProfileBundleSid", "A2PProfileBundleSid"], [], () => {
        const profile = bundles.get(form.get("CustomerProfileBundleSid")!);
        const a2p = bundles.get(form.get("A2PProfileBundleSid")!);
        if (
          profile?.kind !== "CustomerProfiles" ||
          a2p?.kind !== "TrustProducts" ||
          profile.status !== "pending-review" ||
          a2p.status !== "pending-review"
        ) {
          return reply(400, { code: 21718, message: "Both bundles must be submitted for review", status: 400 });
        }
        const brand = sid("BN");
        records.set(brand, {
          sid: brand,
          status: "PENDING",
          failure_reason: null,
          brand_score: null,
          customer_profile_bundle_sid: form.get("CustomerProfileBundleSid"),
          a2p_profile_bundle_sid: form.get("A2PProfileBundleSid"),
        });
        reply(201, records.get(brand));
      });
    }
    const brand = path.match(/^\/messaging\/v1\/a2p\/BrandRegistrations\/(BN[0-9a-f]{32})$/);
    if (method === "GET" && brand) {
      const record = records.get(brand[1]!);
      reply(record ? 200 : 404, record ?? { code: 20404, message: "Resource not found", status: 404 });
      return true;
    }
    if (method === "POST" && path === "/messaging/v1/Services") {
      return post(["FriendlyName"], [], () => {
        const service = sid("MG");
        services.set(service, form.get("FriendlyName")!);
        reply(201, { sid: service, friendly_name: form.get("FriendlyName") });
      });
    }
    const service = path.match(
      /^\/messaging\/v1\/Services\/(MG[0-9a-f]{32})\/(Compliance\/Usa2p|PhoneNumbers)(?:\/(QE[0-9a-f]{32}))?$/,
    );
    if (service && services.has(service[1]!)) {
      const [, serviceSid, resource, campaignSid] = service;
      if (method === "GET" && resource === "Compliance/Usa2p" && !campaignSid) {
        const compliance = [...records.entries()]
          .filter(([reference]) => reference.startsWith(`${serviceSid}/`))
          .map(([, record]) => record);
        reply(200, { compliance, meta: { key: "compliance", page: 0 } });
        return true;
      }
      if (method === "GET" && campaignSid) {
        const record = records.get(`${serviceSid}/${campaignSid}`);
        reply(record ? 200 : 404, record ?? { code: 20404, message: "Resource not found", status: 404 });
        return true;
      }
      if (method === "POST" && resource === "PhoneNumbers")
        return post(["PhoneNumberSid"], [], () =>
          reply(201, { sid: form.get("PhoneNumberSid"), service_sid: serviceSid }),
        );
      if (method === "POST" && !campaignSid) {
        return post(
          [
            "BrandRegistrationSid",
            "Description",
            "MessageFlow",
            "MessageSamples",
            "UsAppToPersonUsecase",
            "HasEmbeddedLinks",
            "HasEmbeddedPhone",
          ],
          ["OptOutMessage", "HelpMessage"],
          () => {
            const samples = form.getAll("MessageSamples");
            if (samples.length < 2 || samples.length > 5) return mismatch("MessageSamples: 2 to 5");
            if (records.get(form.get("BrandRegistrationSid")!)?.["status"] !== "APPROVED")
              return reply(400, { code: 21711, message: "The brand is not approved", status: 400 });
            const campaign = sid("QE");
            records.set(`${serviceSid}/${campaign}`, {
              sid: campaign,
              messaging_service_sid: serviceSid,
              campaign_status: "IN_PROGRESS",
              errors: [],
            });
            reply(201, records.get(`${serviceSid}/${campaign}`));
          },
        );
      }
    }
    if (method === "POST" && path === "/messaging/v1/Tollfree/Verifications") {
      return post(TWILIO_TOLL_FREE_REQUIRED, TWILIO_TOLL_FREE_OPTIONAL, () => {
        if (!/^PN[0-9a-f]{32}$/.test(form.get("TollfreePhoneNumberSid")!))
          return reply(400, { code: 20001, message: "Invalid TollfreePhoneNumberSid", status: 400 });
        const profile = form.get("CustomerProfileSid");
        if (profile && bundles.get(profile)?.kind !== "CustomerProfiles")
          return reply(400, { code: 20001, message: "Invalid CustomerProfileSid", status: 400 });
        if (!form.getAll("OptInImageUrls").every((url) => /^https?:\/\//.test(url)))
          return mismatch("OptInImageUrls: public URLs");
        const verification = sid("HH");
        records.set(verification, {
          sid: verification,
          status: "PENDING_REVIEW",
          tollfree_phone_number_sid: form.get("TollfreePhoneNumberSid"),
          customer_profile_sid: profile,
          external_reference_id: form.get("ExternalReferenceId"),
          business_name: form.get("BusinessName"),
          rejection_reason: null,
          error_code: null,
          edit_allowed: null,
        });
        reply(201, records.get(verification));
      });
    }
    if (method === "GET" && path === "/messaging/v1/Tollfree/Verifications") {
      const number = query.get("TollfreePhoneNumberSid");
      const verifications = [...records.values()].filter(
        (record) =>
          String(record["sid"] ?? "").startsWith("HH") && (!number || record["tollfree_phone_number_sid"] === number),
      );
      reply(200, { verifications, meta: { key: "verifications", page: 0 } });
      return true;
    }
    const verification = path.match(/^\/messaging\/v1\/Tollfree\/Verifications\/(HH[0-9a-f]{32})$/);
    if (method === "GET" && verification) {
      const record = records.get(verification[1]!);
      reply(record ? 200 : 404, record ?? { code: 20404, message: "Resource not found", status: 404 });
      return true;
    }
    mismatch(`no Twilio registration route ${method} ${path}`);
    return true;
  }

  /** `POST /__fake/registrations/{reference}`: what the carrier reports about a registration from now on. */
  function decide(reference: string, changes: Record<string, unknown>): boolean {
    const record = records.get(reference);
    if (!record) return false;
    Object.assign(record, changes);
    return true;
  }

  return { telnyx, twilio, decide, campaignOf: (phoneNumber: string) => assignments.get(phoneNumber) };
}

/** What is wrong with a JSON body's fields, or undefined when it has the required ones (non-empty) and nothing else. */
export function fieldProblem(
  body: Record<string, unknown> | undefined,
  required: string[],
  optional: string[],
): string | undefined {
  if (!body) return "a JSON body is required";
  const missing = required.filter((name) => body[name] === undefined || body[name] === "");
  if (missing.length) return `missing ${missing.join(", ")}`;
  const extra = Object.keys(body).filter((name) => !required.includes(name) && !optional.includes(name));
  return extra.length ? `unexpected ${extra.join(", ")}` : undefined;
}

function formProblem(form: URLSearchParams, required: string[], optional: string[]): string | undefined {
  const names = new Set(form.keys());
  const missing = required.filter((name) => !form.get(name));
  if (missing.length) return `missing ${missing.join(", ")}`;
  const extra = [...names].filter((name) => !required.includes(name) && !optional.includes(name));
  return extra.length ? `unexpected ${extra.join(", ")}` : undefined;
}
