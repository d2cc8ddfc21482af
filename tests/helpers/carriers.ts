import { createPrivateKey, sign } from "node:crypto";
import { inject } from "vitest";
import type { RecordedRequest, ScriptedOutcome } from "#tests/setup/carrier-fakes";
import { baseUrl, type TestOrganization } from "#tests/helpers/stack";

/**
 * The test stack's Telnyx and Twilio REST fakes (tests/setup/carrier-fakes.ts)
 * and Telnyx's signed webhooks, for the end-to-end tests of a real carrier.
 */

const fakes = () => inject("carrierFakes");

/** What the fakes received whose record mentions `containing` (a number unique to the test), oldest first. */
export async function carrierRequests(containing: string): Promise<RecordedRequest[]> {
  const response = await fetch(`${fakes().url}/__fake/requests?containing=${encodeURIComponent(containing)}`);
  return (await response.json()) as RecordedRequest[];
}

/** Telnyx message sends from our number `ours`, in arrival order. */
export async function telnyxSendsFrom(ours: string): Promise<RecordedRequest[]> {
  const requests = await carrierRequests(ours);
  return requests
    .filter((request) => request.method === "POST" && request.path === "/v2/messages")
    .sort((a, b) => a.at - b.at);
}

/** The next sends (messages or calls) to `to` through `carrier` answer these outcomes in order, then are accepted. */
export async function scriptCarrier(
  carrier: "telnyx" | "twilio",
  to: string,
  outcomes: ScriptedOutcome[],
): Promise<void> {
  const response = await fetch(`${fakes().url}/__fake/script`, {
    method: "POST",
    body: JSON.stringify({ carrier, to, outcomes }),
  });
  if (response.status !== 204) throw new Error(`script: ${response.status}`);
}

/** What the Telnyx fake's lookups answer from now on for a call (TeXML status word, duration) or a message (recipient status, errors). */
export async function setTelnyxRecord(
  kind: "calls" | "messages",
  id: string,
  record: { status: string; duration?: number; errors?: { code: string; title: string }[] },
): Promise<void> {
  const response = await fetch(`${fakes().url}/__fake/${kind}/${encodeURIComponent(id)}`, {
    method: "POST",
    body: JSON.stringify(record),
  });
  if (response.status !== 204) throw new Error(`${kind}: ${response.status}`);
}

/** The Telnyx account holds `phoneNumber` (bought or ported outside the API), so it may be registered without purchase; answers its Telnyx id. */
export async function holdAtTelnyx(phoneNumber: string): Promise<string> {
  const response = await fetch(`${fakes().url}/__fake/telnyx/held`, {
    method: "POST",
    body: JSON.stringify({ phoneNumber }),
  });
  if (response.status !== 200) throw new Error(`held: ${response.status}`);
  return ((await response.json()) as { id: string }).id;
}

/**
 * Posts a webhook to the stack as Telnyx does: Ed25519 over `<telnyx-timestamp>|<body>` with the account key
 * (JSON messaging events, or TeXML's form-encoded call callbacks). `signature: "forged"` signs another body.
 */
export async function postTelnyxWebhook(
  url: string,
  body: string,
  options: { signature?: "forged" } = {},
): Promise<{ status: number; text: string }> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const key = createPrivateKey(fakes().telnyxPrivateKeyPem);
  const signed = options.signature === "forged" ? `${body} ` : body;
  const response = await fetch(url.startsWith("http") ? url : `${baseUrl()}${url}`, {
    method: "POST",
    headers: {
      "content-type": body.startsWith("{") ? "application/json" : "application/x-www-form-urlencoded",
      "telnyx-timestamp": timestamp,
      "telnyx-signature-ed25519": sign(null, Buffer.from(`${timestamp}|${signed}`), key).toString("base64"),
    },
    body,
  });
  return { status: response.status, text: await response.text() };
}

/** A Telnyx messaging webhook body (`message.finalized`, `message.received`…) around a payload. */
export function telnyxEvent(eventType: string, payload: Record<string, unknown>, id = crypto.randomUUID()): string {
  return JSON.stringify({
    data: { event_type: eventType, id, occurred_at: new Date().toISOString(), payload, record_type: "event" },
    meta: { attempt: 1 },
  });
}

/** Makes `provider` the organization's carrier (PUT replaces the settings: quiet hours kept off, `settings` added). */
export async function onCarrier(
  org: TestOrganization,
  provider: "telnyx" | "twilio",
  settings: Record<string, unknown> = {},
): Promise<void> {
  const chosen = await org.request("PUT", "/messaging/settings", {
    body: { provider, quietHours: { start: "00:00", end: "00:00" }, ...settings },
  });
  if (chosen.status !== 200) throw new Error(`settings: ${chosen.status} ${JSON.stringify(chosen.body)}`);
}

/** Buys an offered number through the API (`GET /available-phone-numbers`, then `POST /phone-numbers` with purchase). */
export async function buyNumber(
  org: TestOrganization,
  areaCode = "212",
  extra: Record<string, unknown> = {},
): Promise<{ id: string; phoneNumber: string }> {
  const offered = await org.request(
    "GET",
    `/available-phone-numbers?areaCode=${areaCode}&capabilities=sms,voice&limit=1`,
  );
  if (offered.status !== 200) throw new Error(`search: ${offered.status} ${JSON.stringify(offered.body)}`);
  const bought = await org.request("POST", "/phone-numbers", {
    body: { phoneNumber: offered.body.items[0].phoneNumber, purchase: true, ...extra },
  });
  if (bought.status !== 201) throw new Error(`purchase: ${bought.status} ${JSON.stringify(bought.body)}`);
  return bought.body;
}

/** What the carrier fakes report from now on about a 10DLC brand or campaign (its reference as the API shows it; tests/setup/registration-fakes.ts). */
export async function decideRegistration(reference: string, changes: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${fakes().url}/__fake/registrations/${encodeURIComponent(reference)}`, {
    method: "POST",
    body: JSON.stringify(changes),
  });
  if (response.status !== 204) throw new Error(`registration ${reference}: ${response.status}`);
}
