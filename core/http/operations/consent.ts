import * as v from "valibot";
import { ConsentRecordSchema } from "#core/compliance/consent-record";
import { ConsentEvidenceSchema, ConsentRecordRequestSchema } from "#core/consent/index";
import { ConsentSettingsRequestSchema, ConsentSettingsSchema } from "#core/consent/settings";
import { routedBy } from "#core/http/operation";
import { consentRoutes } from "#stacks/definitions";

const defineOperation = routedBy(consentRoutes);

const LeadIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
const tag = "Consent";

export const getConsentSettings = /* @__PURE__ */ defineOperation({
  operationId: "getConsentSettings",
  summary: "Which certificate-API accounts (TrustedForm, Jornaya) the organization verifies consent with",
  tag,
  auth: "bearer",
  permission: "sources:read",
  success: {
    status: 200,
    description: "The settings (never the API key or account code itself)",
    schema: ConsentSettingsSchema,
  },
  problems: [401, 403, 429],
});

export const updateConsentSettings = /* @__PURE__ */ defineOperation({
  operationId: "updateConsentSettings",
  summary: "Set the organization's certificate-API accounts and frequency caps",
  description:
    "Leads arriving with a `CertifiedFormUrl` on https://cert.trustedform.com are claimed with this TrustedForm account and matched to the lead's phone and e-mail; " +
    "without an account they stay `Unverified`. The TrustedForm API key and the Jornaya account code are stored as secrets and never answered (only their first characters). " +
    "A field left out keeps what is stored, so the caps can be changed without sending the secrets again; `null` removes an account.",
  tag,
  auth: "bearer",
  permission: "sources:write",
  body: ConsentSettingsRequestSchema,
  success: { status: 200, description: "The settings", schema: ConsentSettingsSchema },
  problems: [400, 401, 403, 413, 415, 429],
  example: { trustedForm: { apiKey: "0123456789abcdef" }, jornaya: null },
});

export const recordLeadConsent = /* @__PURE__ */ defineOperation({
  operationId: "recordLeadConsent",
  summary: "Record a consent the business collected itself, with its evidence; the lead becomes OptedIn on it",
  description:
    "A contact who opted out stays opted out (only their own START undoes it); the record is kept either way.",
  tag,
  auth: "bearer",
  permission: "leads:write",
  params: LeadIdParams,
  body: ConsentRecordRequestSchema,
  success: { status: 201, description: "The consent event recorded", schema: ConsentEvidenceSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: {
    capturedAt: "2026-01-05T14:03:00Z",
    channel: "Phone",
    consentLanguage:
      "I agree that Acme may call and text me about my quote at the number above, including by automated means.",
    evidenceUrl: "https://files.example.com/recordings/123.mp3",
  },
});

export const getLeadConsentRecord = /* @__PURE__ */ defineOperation({
  operationId: "getLeadConsentRecord",
  summary:
    "The lead's consent record: certificate, consent events, every text and call with its consent basis and rule outcome, opt-outs",
  tag,
  auth: "bearer",
  permission: "leads:read",
  params: LeadIdParams,
  success: { status: 200, description: "The consent record", schema: ConsentRecordSchema },
  problems: [401, 403, 404, 429],
});

export const printLeadConsentRecord = /* @__PURE__ */ defineOperation({
  operationId: "printLeadConsentRecord",
  summary: "The lead's consent record as a printable HTML page",
  tag,
  auth: "bearer",
  permission: "leads:read",
  params: LeadIdParams,
  success: { status: 200, description: "The page", contentType: "text/html", jsonSchema: { type: "string" } },
  problems: [401, 403, 404, 429],
});
