import { createPublicKey, verify } from "node:crypto";
import type { MessageStatus } from "#core/shared/status";
import {
  ProviderError,
  headerValue,
  type AvailableNumber,
  type CallStatusReport,
  type AvailableNumberQuery,
  type OwnedNumber,
  type DialResultEvent,
  type HandOffReference,
  type InboundMessage,
  type MessageStatusEvent,
  type MessageStatusReport,
  type PlaceCallInput,
  type PlaceCallResult,
  type ProviderErrorKind,
  type ProviderEvent,
  type ProviderPort,
  type SendMessageInput,
  type SendMessageResult,
  type WebhookRequest,
} from "#core/providers/port";
import { HAND_OFF_CLOCK_SKEW_MS, createTwilioProvider } from "#core/providers/twilio/adapter";
import type { createTelnyxRegistrar } from "#core/providers/telnyx/registration";
import { callReportFromTwilio, callStatusFromTwilio } from "#core/providers/twilio/statuses";

/**
 * Telnyx adapter of the provider port, messaging part: Messaging API v2
 * (`POST /v2/messages`, `GET /v2/messages/{id}`, JSON, `Authorization:
 * Bearer <API key>`) and its JSON webhooks (`message.sent`,
 * `message.finalized`, `message.received`), signed with Ed25519 over
 * `<telnyx-timestamp>|<raw body>` (`telnyx-signature-ed25519`, base64) and
 * checked with the account's public key (node:crypto, no SDK).
 *
 * Calls go through the TeXML Calls API of a TeXML application
 * (`POST /v2/texml/calls/{connection_id}`, inline `Texml`): TeXML is
 * TwiML-compatible, so the bridge instructions and the form-encoded status
 * and Dial callbacks are Twilio's, parsed by the Twilio adapter. Numbers:
 * available_phone_numbers, number_orders, phone_numbers (lookup, PATCH to the
 * TeXML application and messaging profile, DELETE); Telnyx routes a number's
 * webhooks by those two, not per number (docs/providers.md).
 */
export type TelnyxConfig = {
  apiKey: string;
  /** The account's webhook public key, base64 of the raw 32-byte Ed25519 key (Mission Control → Keys). */
  publicKey: string;
  fetch?: typeof fetch;
  baseUrl?: string;
  timeoutMs?: number;
  /** The messaging profile bought and registered numbers join (its inbound webhook points at /webhooks/telnyx/messages/inbound). */
  messagingProfileId?: string;
  /** The TeXML application (connection id) outbound calls are placed through; calls are refused without it. */
  texmlConnectionId?: string;
  /** The account's TeXML account sid: call lookups (`GET /v2/texml/Accounts/{sid}/Calls/{call_sid}`) need it; without it the call sweep ends lost calls Failed. */
  accountSid?: string;
  /** Oldest signature timestamp accepted (seconds), against replays. */
  toleranceSeconds?: number;
  now?: () => number;
  /** Builds `registration` (10DLC, toll-free) over this account's requests; only carrier registration passes it (core/providers/registrars.ts). */
  registrar?: typeof createTelnyxRegistrar;
};

/** Telnyx message statuses (per recipient, `to[0].status`) in our lifecycle. */
const MESSAGE_STATUSES: Record<string, MessageStatus> = {
  queued: "Queued",
  sending: "Sending",
  sent: "Sent",
  delivered: "Delivered",
  sending_failed: "Failed",
  delivery_failed: "Undelivered",
  delivery_unconfirmed: "Unknown",
  expired: "Undelivered",
};

/**
 * Telnyx error codes by kind (Messaging error code reference). Request errors
 * (1xxxx) and carrier rejections that will not change are permanent; a
 * carrier or Telnyx that is momentarily unable is transient; 40300 is the
 * recipient's STOP held by Telnyx.
 */
export const TELNYX_ERROR_KINDS: Readonly<Record<string, ProviderErrorKind>> = {
  "40300": "optedOut",
  "10007": "transient",
  "10011": "transient",
  "40002": "transient",
  "40004": "transient",
  "40006": "transient",
  "40011": "transient",
  "40014": "transient",
  "10001": "permanent",
  "10002": "permanent",
  "10004": "permanent",
  "10009": "permanent",
  "40001": "permanent",
  "40003": "permanent",
  "40008": "permanent",
  "40009": "permanent",
  "40012": "permanent",
  "40013": "permanent",
};

/** The kind of a Telnyx error: by code, else by HTTP status (429 and 5xx transient). */
export function classifyTelnyxError(code: string | undefined, httpStatus: number): ProviderErrorKind {
  const known = code === undefined ? undefined : TELNYX_ERROR_KINDS[code];
  if (known) return known;
  return httpStatus === 429 || httpStatus >= 500 ? "transient" : "permanent";
}

/**
 * Telnyx documents its TeXML call list as eventually consistent and builds message detail records after the fact,
 * with no stated delay: a hand-off search that misses is trusted only this long after the claim (docs/decisions.md).
 */
export const TELNYX_SEARCH_SETTLE_MS = 5 * 60_000;
/** A placed call's direction in the TeXML call list (a Dial's child leg, `outbound-dial`, is not ours). */
const OUTBOUND_CALL_DIRECTIONS = new Set(["outbound", "outbound-api"]);
/** Page size of a hand-off search; a full page without a match cannot say (detail records allow up to 50). */
const HAND_OFF_SEARCH_PAGE_SIZE = 50;

/** SPKI DER prefix of a raw Ed25519 public key (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export function createTelnyxProvider(config: TelnyxConfig): ProviderPort {
  const baseUrl = config.baseUrl ?? "https://api.telnyx.com";
  const doFetch = config.fetch ?? fetch;
  // Parses TeXML's Twilio-compatible form callbacks; its signature check is never used (Telnyx signs with Ed25519).
  const texml = createTwilioProvider({ accountSid: "", authToken: "" });
  const publicKey = createPublicKey({
    key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(config.publicKey, "base64")]),
    format: "der",
    type: "spki",
  });

  /**
   * `flat`: the response is the resource itself (TeXML calls), not `{ data }`;
   * `list`: `data` is an array. A GET or DELETE of something Telnyx does not
   * know (404) answers undefined (an empty list).
   */
  async function request(
    path: string,
    body?: unknown,
    options: { flat?: boolean; list?: boolean; method?: "PATCH" | "DELETE" } = {},
  ): Promise<Record<string, unknown> | undefined> {
    let response: Response;
    try {
      response = await doFetch(`${baseUrl}${path}`, {
        method: options.method ?? (body === undefined ? "GET" : "POST"),
        headers: {
          authorization: `Bearer ${config.apiKey}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(config.timeoutMs ?? 10_000),
      });
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      throw new ProviderError(
        "transient",
        timedOut ? "timeout" : "network_error",
        `Telnyx ${path} request failed: ${(error as Error).message}`,
        { ambiguous: true },
      );
    }
    const text = await response.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      parsed = {};
    }
    if (response.status === 404 && body === undefined)
      return options.list ? ([] as unknown as Record<string, unknown>) : undefined;
    if (!response.ok) {
      const first = ((parsed["errors"] as { code?: string; title?: string; detail?: string }[] | undefined) ?? [])[0];
      const code = first?.code === undefined ? undefined : String(first.code);
      const retryAfter = Number(response.headers.get("retry-after"));
      throw new ProviderError(
        classifyTelnyxError(code, response.status),
        code ?? `http_${response.status}`,
        first?.detail ?? first?.title ?? `Telnyx answered ${response.status}`,
        {
          httpStatus: response.status,
          ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterSeconds: retryAfter } : {}),
        },
      );
    }
    if (options.flat) return parsed;
    return (
      (parsed["data"] as Record<string, unknown> | undefined) ??
      (options.list ? ([] as unknown as Record<string, unknown>) : {})
    );
  }

  async function findOwnedNumber(phoneNumber: string): Promise<OwnedNumber | undefined> {
    const held = (await request(
      `/v2/phone_numbers?${new URLSearchParams([["filter[phone_number]", phoneNumber]]).toString()}`,
      undefined,
      { list: true },
    )) as unknown as { id?: string; phone_number?: string }[];
    const match = held.find((number) => number.phone_number === phoneNumber);
    return match?.id ? { providerNumberId: match.id, phoneNumber } : undefined;
  }

  /** A full page of candidates none of which matched: there may be more, so the search cannot say. */
  function inconclusive(what: string, reference: HandOffReference): ProviderError {
    return new ProviderError(
      "transient",
      "lookup_inconclusive",
      `${HAND_OFF_SEARCH_PAGE_SIZE} or more ${what} from ${reference.from} to ${reference.to} since ${reference.since}.`,
    );
  }

  const since = (reference: HandOffReference) => Date.parse(reference.since) - HAND_OFF_CLOCK_SKEW_MS;

  /**
   * Telnyx takes no idempotency key and lists no messages: its message detail records (MDRs) are searched by sender,
   * recipient and creation time, oldest first, and each candidate's message is read for its text, which MDRs lack.
   */
  async function findSentMessage(reference: HandOffReference & { body?: string }) {
    const query = new URLSearchParams([
      ["filter[record_type]", "messaging"],
      ["filter[direction]", "outbound"],
      ["filter[cli]", reference.from],
      ["filter[cld]", reference.to],
      ["filter[created_at][gte]", new Date(since(reference)).toISOString()],
      ["sort", "created_at"],
      ["page[size]", String(HAND_OFF_SEARCH_PAGE_SIZE)],
    ]);
    const records = (await request(`/v2/detail_records?${query.toString()}`, undefined, {
      list: true,
    })) as unknown as { uuid?: string }[];
    for (const record of records) {
      if (!record.uuid || reference.exclude?.includes(record.uuid)) continue;
      const message = await request(`/v2/messages/${encodeURIComponent(record.uuid)}`);
      if (!message || String(message["text"] ?? "") !== (reference.body ?? "")) continue;
      const parts = Number(message["parts"]);
      return {
        providerMessageId: record.uuid,
        status: MESSAGE_STATUSES[recipientStatus(message) ?? ""] ?? "Queued",
        ...(Number.isInteger(parts) && parts > 0 ? { segments: parts } : {}),
      };
    }
    if (records.length >= HAND_OFF_SEARCH_PAGE_SIZE) throw inconclusive("messages", reference);
    return undefined;
  }

  /** The oldest outbound TeXML call between the two numbers since the claim (the list filters dates by whole days only). */
  async function findPlacedCall(accountSid: string, reference: HandOffReference) {
    const query = new URLSearchParams([
      ["To", reference.to],
      ["From", reference.from],
      ["PageSize", String(HAND_OFF_SEARCH_PAGE_SIZE)],
    ]);
    const page = await request(
      `/v2/texml/Accounts/${encodeURIComponent(accountSid)}/Calls?${query.toString()}`,
      undefined,
      { flat: true },
    );
    const calls = (page?.["calls"] as Record<string, unknown>[] | undefined) ?? [];
    const created = (call: Record<string, unknown>) => Date.parse(String(call["date_created"] ?? ""));
    const [placed] = calls
      .filter(
        (call) => created(call) >= since(reference) && OUTBOUND_CALL_DIRECTIONS.has(String(call["direction"] ?? "")),
      )
      .sort((a, b) => created(a) - created(b));
    if (placed)
      return {
        providerCallId: String(placed["sid"] ?? placed["call_sid"]),
        status: callStatusFromTwilio(String(placed["status"] ?? "")) ?? ("Queued" as const),
      };
    if (calls.length >= HAND_OFF_SEARCH_PAGE_SIZE) throw inconclusive("calls", reference);
    return undefined;
  }

  return {
    name: "telnyx",
    ...(config.registrar ? { registration: config.registrar(request) } : {}),
    handOffSearchSettleMs: TELNYX_SEARCH_SETTLE_MS,
    findSentMessage,
    // Calls are looked up in the TeXML account; without its sid a cut-short placement waits for its deadline.
    ...(config.accountSid
      ? { findPlacedCall: (reference: HandOffReference) => findPlacedCall(config.accountSid!, reference) }
      : {}),

    async sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
      const data = await request("/v2/messages", {
        from: input.from,
        to: input.to,
        ...(input.body ? { text: input.body } : {}),
        ...(input.media?.length ? { media_urls: input.media.map((item) => item.url), type: "MMS" } : {}),
        ...(input.statusCallbackUrl ? { webhook_url: input.statusCallbackUrl } : {}),
      });
      const parts = Number(data?.["parts"]);
      return {
        providerMessageId: String(data?.["id"]),
        status: MESSAGE_STATUSES[recipientStatus(data) ?? ""] ?? "Queued",
        ...(Number.isInteger(parts) && parts > 0 ? { segments: parts } : {}),
      };
    },

    async placeCall(input: PlaceCallInput): Promise<PlaceCallResult> {
      if (!config.texmlConnectionId) {
        throw new ProviderError(
          "permanent",
          "provider_not_configured",
          "Calls through Telnyx need a TeXML application (TELNYX_TEXML_CONNECTION_ID).",
        );
      }
      // TeXML is TwiML-compatible: the same instructions (bridge, whisper, Dial) and the same form-encoded callbacks.
      const call = await request(
        `/v2/texml/calls/${encodeURIComponent(config.texmlConnectionId)}`,
        {
          From: input.from,
          To: input.to,
          ...(input.answerUrl
            ? { Url: input.answerUrl }
            : { Texml: input.instructions ?? "<Response><Hangup/></Response>" }),
          ...(input.statusCallbackUrl
            ? {
                StatusCallback: input.statusCallbackUrl,
                StatusCallbackMethod: "POST",
                StatusCallbackEvent: "initiated ringing answered completed",
              }
            : {}),
          ...(input.record ? { Record: true } : {}),
          ...(input.ringTimeoutSeconds !== undefined ? { Timeout: input.ringTimeoutSeconds } : {}),
          ...(input.timeLimitSeconds !== undefined ? { TimeLimit: input.timeLimitSeconds } : {}),
        },
        { flat: true },
      );
      const callSid = call?.["call_sid"] ?? call?.["sid"];
      if (!callSid)
        throw new ProviderError(
          "transient",
          "malformed_response",
          "Telnyx answered the call request without a call_sid",
          { ambiguous: true },
        );
      return { providerCallId: String(callSid), status: "Queued" };
    },

    async fetchMessageStatus(providerMessageId: string): Promise<MessageStatusReport | undefined> {
      const data = await request(`/v2/messages/${encodeURIComponent(providerMessageId)}`);
      const providerStatus = recipientStatus(data);
      const status = providerStatus === undefined ? undefined : MESSAGE_STATUSES[providerStatus];
      if (!data || !providerStatus || !status) return undefined;
      const errorCode = firstErrorCode(data);
      return { providerMessageId, status, providerStatus, ...(errorCode ? { errorCode } : {}) };
    },

    async fetchCallStatus(providerCallId: string): Promise<CallStatusReport | undefined> {
      if (!config.accountSid) return undefined;
      // The TeXML call resource is flat (not under `data`) and uses Twilio's status words.
      const call = await request(
        `/v2/texml/Accounts/${encodeURIComponent(config.accountSid)}/Calls/${encodeURIComponent(providerCallId)}`,
        undefined,
        { flat: true },
      );
      return call ? callReportFromTwilio(call, providerCallId) : undefined;
    },

    async searchAvailableNumbers(query: AvailableNumberQuery): Promise<AvailableNumber[]> {
      const filters: [string, string][] = [["filter[country_code]", query.country]];
      if (query.areaCode) filters.push(["filter[national_destination_code]", query.areaCode]);
      if (query.region) filters.push(["filter[administrative_area]", query.region]);
      for (const capability of query.capabilities) filters.push(["filter[features][]", capability]);
      filters.push(["filter[limit]", String(query.limit)]);
      const offered = (await request(
        `/v2/available_phone_numbers?${new URLSearchParams(filters).toString()}`,
        undefined,
        { list: true },
      )) as unknown as Record<string, unknown>[];
      return offered.map((number) => {
        const regions =
          (number["region_information"] as { region_type?: string; region_name?: string }[] | undefined) ?? [];
        const features = new Set(
          ((number["features"] as { name?: string }[] | undefined) ?? []).map((feature) => feature.name),
        );
        return {
          phoneNumber: String(number["phone_number"]),
          region: regions.find((region) => region.region_type === "state")?.region_name ?? null,
          locality: regions.find((region) => region.region_type === "rate_center")?.region_name ?? null,
          capabilities: (["sms", "mms", "voice"] as const).filter((capability) => features.has(capability)),
        };
      });
    },

    async buyNumber(phoneNumber: string): Promise<OwnedNumber> {
      // Telnyx routes inbound traffic by the number's messaging profile and TeXML application, which point at our webhooks.
      const order = await request("/v2/number_orders", {
        phone_numbers: [{ phone_number: phoneNumber }],
        ...(config.texmlConnectionId ? { connection_id: config.texmlConnectionId } : {}),
        ...(config.messagingProfileId ? { messaging_profile_id: config.messagingProfileId } : {}),
      });
      const ordered = ((order?.["phone_numbers"] as { phone_number?: string }[] | undefined) ?? []).some(
        (number) => number.phone_number === phoneNumber,
      );
      if (!ordered)
        throw new ProviderError("transient", "malformed_response", `Telnyx answered the order without ${phoneNumber}`, {
          ambiguous: true,
        });
      // The order completes asynchronously and its items are order records, not phone number resources:
      // the number is our handle, resolved to its phone number id when it is released.
      return { providerNumberId: phoneNumber, phoneNumber };
    },

    findOwnedNumber,

    async configureNumber(providerNumberId: string): Promise<void> {
      const id = encodeURIComponent(providerNumberId);
      if (config.texmlConnectionId)
        await request(`/v2/phone_numbers/${id}`, { connection_id: config.texmlConnectionId }, { method: "PATCH" });
      if (config.messagingProfileId)
        await request(
          `/v2/phone_numbers/${id}/messaging`,
          { messaging_profile_id: config.messagingProfileId },
          { method: "PATCH" },
        );
    },

    async releaseNumber(providerNumberId: string): Promise<void> {
      // A bought number's handle is its E.164 (above); a number the account no longer holds is already released.
      const numberId = providerNumberId.startsWith("+")
        ? (await findOwnedNumber(providerNumberId))?.providerNumberId
        : providerNumberId;
      if (!numberId) return;
      await request(`/v2/phone_numbers/${encodeURIComponent(numberId)}`, undefined, { method: "DELETE" });
    },

    parseStatusCallback(request: WebhookRequest): ProviderEvent[] {
      // TeXML call callbacks are form-encoded like Twilio's; messaging events are JSON.
      if (!request.body.trimStart().startsWith("{")) return texml.parseStatusCallback(request);
      const { eventType, eventId, payload } = envelope(request.body);
      if (eventType !== "message.sent" && eventType !== "message.finalized") return [];
      const providerStatus = recipientStatus(payload);
      const status = providerStatus === undefined ? undefined : MESSAGE_STATUSES[providerStatus];
      if (!providerStatus || !status) return [];
      const errorCode = firstErrorCode(payload);
      const from = (payload["from"] as { phone_number?: string } | undefined)?.phone_number;
      const to = ((payload["to"] as { phone_number?: string }[] | undefined) ?? [])[0]?.phone_number;
      const event: MessageStatusEvent = {
        type: "message.status",
        providerMessageId: String(payload["id"]),
        status,
        providerStatus,
        ...(errorCode ? { errorCode } : {}),
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
        dedupKey: eventId,
      };
      return [event];
    },

    parseDialResult(request: WebhookRequest): DialResultEvent | undefined {
      return texml.parseDialResult(request);
    },

    parseInboundMessage(request: WebhookRequest): InboundMessage {
      const { eventType, payload } = envelope(request.body);
      if (eventType !== "message.received")
        throw new ProviderError(
          "permanent",
          "malformed_webhook",
          `Telnyx webhook ${eventType} is not an inbound message`,
        );
      const id = String(payload["id"] ?? "");
      const from = (payload["from"] as { phone_number?: string } | undefined)?.phone_number;
      const to = ((payload["to"] as { phone_number?: string }[] | undefined) ?? [])[0]?.phone_number;
      if (!id || !from || !to)
        throw new ProviderError("permanent", "malformed_webhook", "Telnyx inbound message without id, from or to");
      const media = ((payload["media"] as { url?: string; content_type?: string }[] | undefined) ?? []).filter(
        (item) => item.url,
      );
      const parts = Number(payload["parts"]);
      return {
        type: "message.inbound",
        providerMessageId: id,
        from,
        to,
        body: String(payload["text"] ?? ""),
        media: media.map((item) => ({ url: item.url!, contentType: item.content_type ?? "application/octet-stream" })),
        ...(Number.isInteger(parts) && parts > 0 ? { segments: parts } : {}),
        dedupKey: `${id}:received`,
      };
    },

    verifyWebhookSignature(request: WebhookRequest): boolean {
      const signature = headerValue(request.headers, "telnyx-signature-ed25519");
      const timestamp = headerValue(request.headers, "telnyx-timestamp");
      if (!signature || !timestamp || !/^\d+$/.test(timestamp)) return false;
      const now = Math.floor((config.now ?? Date.now)() / 1000);
      if (Math.abs(now - Number(timestamp)) > (config.toleranceSeconds ?? 300)) return false;
      try {
        return verify(null, Buffer.from(`${timestamp}|${request.body}`), publicKey, Buffer.from(signature, "base64"));
      } catch {
        return false;
      }
    },
  };
}

function envelope(body: string): { eventType: string; eventId: string; payload: Record<string, unknown> } {
  let parsed: { data?: { event_type?: string; id?: string; payload?: Record<string, unknown> } };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    throw new ProviderError("permanent", "malformed_webhook", "Telnyx webhook body is not JSON");
  }
  const data = parsed.data;
  if (!data?.event_type || !data.payload)
    throw new ProviderError("permanent", "malformed_webhook", "Telnyx webhook without data.event_type or data.payload");
  return {
    eventType: data.event_type,
    eventId: String(data.id ?? `${String(data.payload["id"])}:${data.event_type}`),
    payload: data.payload,
  };
}

/** The (single) recipient's status of a message record. */
function recipientStatus(record: Record<string, unknown> | undefined): string | undefined {
  return ((record?.["to"] as { status?: string }[] | undefined) ?? [])[0]?.status;
}

function firstErrorCode(record: Record<string, unknown>): string | undefined {
  const code = ((record["errors"] as { code?: string | number }[] | undefined) ?? [])[0]?.code;
  return code === undefined ? undefined : String(code);
}
