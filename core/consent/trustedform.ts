import * as v from "valibot";
import { environmentNames } from "#stacks/definitions";

/** The only host a TrustedForm certificate may live on: credentials are never sent anywhere else (TrustedForm's own rule). */
export const TRUSTEDFORM_HOST = "cert.trustedform.com";

/** What TrustedForm's certificate API (v4) established about one certificate, in the terms consent decisions use. */
export type CertificateCheck =
  | { outcome: "Verified"; certificate: VerifiedCertificate }
  /** The certificate is past its retention window (HTTP 410, or an `expires_at` in the past). */
  | { outcome: "Expired"; reason: string }
  /** The certificate exists but neither the lead's phone nor its e-mail is the one typed into the form. */
  | { outcome: "PhoneMismatch"; reason: string }
  /** No such certificate (HTTP 404) or a URL that is not a TrustedForm certificate. */
  | { outcome: "NotFound"; reason: string }
  /** TrustedForm refused our credentials or our request (401, 403, 400, 406…): a configuration problem, not the lead's. */
  | { outcome: "Refused"; reason: string };

/** A claimed (retained) certificate: the evidence kept with the lead. */
export interface VerifiedCertificate {
  provider: "TrustedForm";
  /** The certificate's id (the last path segment of its URL). */
  certificateId: string;
  certificateUrl: string;
  /** Where the consumer filled in the form. */
  pageUrl: string | null;
  /** The consent disclosure TrustedForm recorded on the page. */
  consentLanguage: string | null;
  /** When the form session was captured. */
  capturedAt: string | null;
  /** Until when TrustedForm answers for this certificate. */
  expiresAt: string | null;
  /** Until when our account retains it. */
  retainedUntil: string | null;
  phoneMatched: boolean | null;
  emailMatched: boolean | null;
  verifiedAt: string;
}

/** A certificate API (TrustedForm, Jornaya) did not answer (network, timeout, 429, 5xx): the verification must be tried again, the lead kept waiting. */
export class ConsentVerificationUnavailable extends Error {
  constructor(
    readonly reason: string,
    readonly provider: "TrustedForm" | "Jornaya" = "TrustedForm",
  ) {
    super(`${provider} is unavailable: ${reason}`);
    this.name = "ConsentVerificationUnavailable";
  }
}

/** The properties asked of Insights: what the evidence record keeps. */
export const INSIGHTS_PROPERTIES = ["page_url", "created_at", "expires_at"] as const;

const AnswerSchema = v.object({
  outcome: v.picklist(["success", "failure", "error"]),
  reason: v.nullish(v.string()),
  match_lead: v.nullish(
    v.object({
      result: v.nullish(
        v.object({
          success: v.nullish(v.boolean()),
          email_match: v.nullish(v.boolean()),
          phone_match: v.nullish(v.boolean()),
        }),
      ),
    }),
  ),
  retain: v.nullish(
    v.object({
      results: v.nullish(v.object({ expires_at: v.nullish(v.string()), previously_retained: v.nullish(v.boolean()) })),
    }),
  ),
  insights: v.nullish(
    v.object({
      properties: v.nullish(
        v.object({
          page_url: v.nullish(v.string()),
          created_at: v.nullish(v.string()),
          expires_at: v.nullish(v.string()),
        }),
      ),
    }),
  ),
  verify: v.nullish(v.object({ languages: v.nullish(v.array(v.object({ text: v.string() }))) })),
});

export interface ClaimRequest {
  certificateUrl: string;
  apiKey: string;
  phone: string | null;
  email: string | null;
  /** Our lead id: TrustedForm stores it with the claim, so the certificate points back to the lead. */
  reference: string;
  /** Who sold us the lead (the source's name). */
  vendor: string | null;
}

/**
 * Claims (retains) a certificate through TrustedForm's Certificate API v4: `POST <certificate URL>` with
 * `api-version: 4.0`, Basic auth (user `API`, the account's API key) and the JSON operations `match_lead` (the lead's
 * phone and e-mail, matched against the fingerprints of what was typed into the form), `retain`, `insights` (page
 * URL, capture and expiry times) and `verify` (the consent language seen). The overall `outcome` decides.
 */
export async function claimCertificate(request: ClaimRequest, timeoutMs = 10_000): Promise<CertificateCheck> {
  const target = certificateTarget(request.certificateUrl);
  if (!target)
    return {
      outcome: "NotFound",
      reason: `Not a TrustedForm certificate URL (must be https://${TRUSTEDFORM_HOST}/<id>).`,
    };
  const matchLead = {
    ...(request.email ? { email: request.email } : {}),
    ...(request.phone ? { phone: nationalDigits(request.phone) } : {}),
  };
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "api-version": "4.0",
        Authorization: `Basic ${Buffer.from(`API:${request.apiKey}`).toString("base64")}`,
      },
      body: JSON.stringify({
        match_lead: matchLead,
        retain: { reference: request.reference, ...(request.vendor ? { vendor: request.vendor } : {}) },
        insights: { properties: INSIGHTS_PROPERTIES },
        verify: {},
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new ConsentVerificationUnavailable((error as Error).message);
  }
  const text = await response.text().catch(() => "");
  if (response.status === 429 || response.status >= 500)
    throw new ConsentVerificationUnavailable(`HTTP ${response.status}`);
  const parsed = v.safeParse(AnswerSchema, parseJson(text));
  const reason = parsed.success ? (parsed.output.reason ?? `HTTP ${response.status}`) : `HTTP ${response.status}`;
  if (response.status === 404) return { outcome: "NotFound", reason };
  if (response.status === 410) return { outcome: "Expired", reason };
  if (response.status !== 200 && response.status !== 201) return { outcome: "Refused", reason };
  if (!parsed.success) throw new ConsentVerificationUnavailable(`unreadable answer: ${parsed.issues[0]?.message}`);
  const answer = parsed.output;
  const matched = answer.match_lead?.result;
  const properties = answer.insights?.properties;
  const expiresAt = answer.retain?.results?.expires_at ?? properties?.expires_at ?? null;
  if (answer.outcome === "error") return { outcome: "Refused", reason };
  if (matched && matched.success === false) return { outcome: "PhoneMismatch", reason };
  if (expiresAt && Date.parse(expiresAt) <= Date.now())
    return { outcome: "Expired", reason: `Expired at ${expiresAt}.` };
  if (answer.outcome === "failure") return { outcome: "Refused", reason };
  return {
    outcome: "Verified",
    certificate: {
      provider: "TrustedForm",
      certificateId: target.id,
      certificateUrl: request.certificateUrl,
      pageUrl: properties?.page_url ?? null,
      consentLanguage: answer.verify?.languages?.map((language) => language.text).join("\n") || null,
      capturedAt: properties?.created_at ?? null,
      expiresAt: properties?.expires_at ?? null,
      retainedUntil: answer.retain?.results?.expires_at ?? null,
      phoneMatched: matched?.phone_match ?? null,
      emailMatched: matched?.email_match ?? null,
      verifiedAt: new Date().toISOString(),
    },
  };
}

/** The certificate's id and where to post: TrustedForm's host only (or the configured stand-in, local stacks). */
export function certificateTarget(certificateUrl: string): { id: string; url: string } | undefined {
  let url: URL;
  try {
    url = new URL(certificateUrl);
  } catch {
    return undefined;
  }
  const id = url.pathname.replace(/^\//, "");
  if (url.protocol !== "https:" || url.hostname !== TRUSTEDFORM_HOST || !/^[A-Za-z0-9_-]{1,255}$/.test(id))
    return undefined;
  const base = process.env[environmentNames.trustedFormApiUrl];
  return { id, url: base ? `${base.replace(/\/$/, "")}/${id}` : `https://${TRUSTEDFORM_HOST}/${id}` };
}

/** TrustedForm fingerprints phone numbers as typed on US forms: ten digits, no country code. */
function nationalDigits(e164: string): string {
  return e164.startsWith("+1") ? e164.slice(2) : e164.replace(/^\+/, "");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
