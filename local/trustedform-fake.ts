import type { IncomingMessage, ServerResponse } from "node:http";
import { answer, startFakeServer, type FakeServer } from "#local/fake-server";

/**
 * A local stand-in for TrustedForm's Certificate API v4 (cert.trustedform.com) for `npm start` and the tests.
 * `POST /<certificate id>` is checked as TrustedForm documents it — `api-version: 4.0`, `Content-Type:
 * application/json`, Basic auth with user `API` and the account's key, a JSON body whose `match_lead` carries a phone
 * or an e-mail (required to `retain`) and no field TrustedForm does not take — and a wrong request is answered 400
 * (403 for wrong credentials), so the client that made it fails its test.
 *
 * Certificates exist once registered through `POST /__fake/certificates` (unregistered ids answer 404, as TrustedForm
 * does for an unknown or malformed id), with the account that may claim them, the phone and e-mail typed into the
 * form (matched as fingerprints: a lead with neither is a failure with `phone_match: false`), and how the certificate
 * answers: `valid`, `expired` (410), or `outage` for the next `outages` requests (503, then valid).
 * `GET /__fake/requests?certificateId=` lists what was received.
 */

export interface FakeCertificate {
  certificateId: string;
  /** The TrustedForm account (API key) the certificate may be claimed with. */
  apiKey: string;
  phone?: string;
  email?: string;
  state?: "valid" | "expired";
  /** Requests answered 503 before the certificate answers as its state says. */
  outages?: number;
  pageUrl?: string;
  consentLanguage?: string;
  capturedAt?: string;
}

export interface ReceivedRequest {
  certificateId: string;
  method: string;
  authorization: string | undefined;
  apiVersion: string | undefined;
  contentType: string | undefined;
  body: unknown;
  answered: number;
}

export type TrustedFormFake = FakeServer;

const operations = new Set(["match_lead", "retain", "insights", "verify"]);

export async function startTrustedFormFake(options: { port?: number } = {}): Promise<TrustedFormFake> {
  const certificates = new Map<string, FakeCertificate>();
  const received: ReceivedRequest[] = [];

  function handle(request: IncomingMessage, url: URL, raw: string, response: ServerResponse): void {
    const certificateId = url.pathname.slice(1);
    let body: unknown;
    try {
      body = raw === "" ? undefined : JSON.parse(raw);
    } catch {
      body = raw;
    }
    const entry: ReceivedRequest = {
      certificateId,
      method: request.method ?? "GET",
      authorization: request.headers.authorization,
      apiVersion: request.headers["api-version"] as string | undefined,
      contentType: request.headers["content-type"],
      body,
      answered: 0,
    };
    received.push(entry);
    const reply = (status: number, payload: unknown) => {
      entry.answered = status;
      answer(response, status, payload);
    };
    const refuse = (reason: string) => reply(400, { outcome: "error", reason });
    if (entry.method !== "POST") return reply(405, { outcome: "error", reason: "Only POST claims a certificate." });
    if (entry.apiVersion !== "4.0") return refuse("api-version: 4.0 is required.");
    if (entry.contentType !== "application/json") return refuse("Content-Type must be application/json.");
    const certificate = certificates.get(certificateId);
    if (!certificate) return reply(404, { outcome: "error", reason: "Certificate not found." });
    if (entry.authorization !== `Basic ${Buffer.from(`API:${certificate.apiKey}`).toString("base64")}`)
      return reply(403, { outcome: "error", reason: "Invalid API key." });
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return refuse("The body must be a JSON object.");
    const fields = body as Record<string, any>;
    const unknown = Object.keys(fields).find((name) => !operations.has(name));
    if (unknown) return refuse(`Unknown operation ${unknown}.`);
    const lead = fields.match_lead as { email?: string; phone?: string } | undefined;
    if (fields.retain && !lead?.email && !lead?.phone)
      return refuse("match_lead with an email or a phone is required to retain.");
    if (certificate.outages && certificate.outages > 0) {
      certificate.outages--;
      return reply(503, "Service Unavailable");
    }
    if (certificate.state === "expired") return reply(410, { outcome: "error", reason: "Certificate has expired." });
    const phoneMatch = lead?.phone ? digits(lead.phone) === digits(certificate.phone ?? "") : null;
    const emailMatch = lead?.email ? lead.email.toLowerCase() === certificate.email?.toLowerCase() : null;
    const success = phoneMatch === true || emailMatch === true;
    const capturedAt = certificate.capturedAt ?? new Date(Date.now() - 60_000).toISOString();
    const expiresAt = new Date(Date.parse(capturedAt) + 90 * 86_400_000).toISOString();
    return reply(200, {
      outcome: success ? "success" : "failure",
      reason: success ? null : "Lead data does not match any fingerprint.",
      match_lead: { ...lead, result: { success, email_match: emailMatch, phone_match: phoneMatch } },
      ...(fields.retain
        ? {
            retain: {
              ...fields.retain,
              results: {
                expires_at: success ? new Date(Date.parse(capturedAt) + 5 * 365 * 86_400_000).toISOString() : null,
                previously_retained: false,
              },
            },
          }
        : {}),
      ...(fields.insights
        ? {
            insights: {
              properties: {
                page_url: certificate.pageUrl ?? "https://forms.example.com/quote",
                created_at: capturedAt,
                expires_at: expiresAt,
              },
            },
          }
        : {}),
      ...(fields.verify
        ? {
            verify: {
              languages: certificate.consentLanguage ? [{ text: certificate.consentLanguage }] : [],
              result: { success: Boolean(certificate.consentLanguage) },
            },
          }
        : {}),
    });
  }

  return startFakeServer({
    port: options.port,
    registerPath: "certificates",
    register(raw) {
      const certificate = JSON.parse(raw) as FakeCertificate;
      certificates.set(certificate.certificateId, { state: "valid", ...certificate });
    },
    requests: (query) =>
      received.filter((entry) => !query.get("certificateId") || entry.certificateId === query.get("certificateId")),
    handle,
  });
}

function digits(phone: string): string {
  return phone.replace(/\D/g, "").replace(/^1(?=\d{10}$)/, "");
}
