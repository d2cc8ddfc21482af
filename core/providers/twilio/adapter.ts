import {
  ProviderError,
  headerValue,
  type AvailableNumber,
  type AvailableNumberQuery,
  type NumberWebhooks,
  type OwnedNumber,
  type CallStatusEvent,
  type CallStatusReport,
  type DialResultEvent,
  type HandOffReference,
  type InboundMessage,
  type MessageStatusEvent,
  type MessageStatusReport,
  type PlaceCallInput,
  type PlaceCallResult,
  type ProviderEvent,
  type ProviderPort,
  type SendMessageInput,
  type SendMessageResult,
  type WebhookRequest,
} from "#core/providers/port";
import { twilioRequest, type Form } from "./http.ts";
import type { createTwilioRegistrar } from "./registration.ts";
import { verifyTwilioSignature } from "./signature.ts";
import {
  callReportFromTwilio,
  callStatusFromTwilio,
  dialStatusFromTwilio,
  messageStatusFromTwilio,
} from "./statuses.ts";

/**
 * Twilio adapter of the provider port: the 2010-04-01 REST API over `fetch`
 * (form-encoded requests, HTTP basic auth with a revocable API key and secret)
 * and the form-encoded webhooks Twilio sends, signed with X-Twilio-Signature
 * (checked with the account's auth token, which is used for nothing else).
 *
 * Twilio offers no idempotency key on Messages or Calls: a repeated POST sends
 * again. At-most-once is the caller's job: claim the message (Queued → Sending,
 * conditional write) before calling `sendMessage`, and treat an `ambiguous`
 * ProviderError (timeout, connection lost) as "may have been sent".
 */

export type TwilioConfig = {
  accountSid: string;
  /** Checks webhook signatures only: never sent to Twilio. */
  authToken: string;
  /**
   * The revocable API key (`SK…`) and its secret that authenticate every REST
   * request (HTTP basic). Without them the adapter still verifies and parses
   * webhooks, but refuses REST calls.
   */
  apiKey?: { sid: string; secret: string };
  /** Injected in tests to replay recorded exchanges; the global fetch otherwise. */
  fetch?: typeof fetch;
  baseUrl?: string;
  timeoutMs?: number;
  /** Builds `registration` (10DLC, toll-free) over this account's credentials; only carrier registration passes it (core/providers/registrars.ts). */
  registrar?: typeof createTwilioRegistrar;
};

/** Call progress events requested from Twilio for outbound calls. */
export const CALL_STATUS_CALLBACK_EVENTS = ["initiated", "ringing", "answered", "completed"] as const;

export function createTwilioProvider(config: TwilioConfig): ProviderPort {
  const baseUrl = config.baseUrl ?? "https://api.twilio.com";
  const doFetch = config.fetch ?? fetch;
  const authorization = config.apiKey
    ? `Basic ${Buffer.from(`${config.apiKey.sid}:${config.apiKey.secret}`).toString("base64")}`
    : undefined;

  /**
   * POST a form to a resource (`Messages`), or GET one (`Calls/CA…`) when no
   * form is given; `method` DELETE removes one, `query` filters a GET.
   */
  async function request(
    resource: string,
    form?: Form,
    options: { method?: "DELETE"; query?: Form } = {},
  ): Promise<Record<string, unknown>> {
    const query = options.query?.length ? `?${new URLSearchParams(options.query).toString()}` : "";
    const url = `${baseUrl}/2010-04-01/Accounts/${encodeURIComponent(config.accountSid)}/${resource}.json${query}`;
    return twilioRequest({
      url,
      authorization,
      label: resource,
      ...(form ? { form } : {}),
      ...(options.method ? { method: options.method } : {}),
      fetch: doFetch,
      ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
    });
  }

  /** GETs one resource; undefined when Twilio does not know it (404). */
  async function fetchResource(resource: string): Promise<Record<string, unknown> | undefined> {
    try {
      return await request(resource);
    } catch (error) {
      if (error instanceof ProviderError && error.details.httpStatus === 404) return undefined;
      throw error;
    }
  }

  /**
   * Our outbound Messages or Calls (`outbound-api`: not a reply, nor a Dial's child leg) between the reference's two numbers created since its claim (less a clock skew),
   * oldest first. Twilio lists them newest first and filters only by To and From here: its date filters are whole
   * days (DateSent, StartTime) and a message still queued has no date sent, so pages are followed back until one
   * reaches past the claim (at most `HAND_OFF_SEARCH_PAGES`, else the search cannot say).
   */
  async function outboundSince(
    resource: "Messages" | "Calls",
    reference: HandOffReference,
  ): Promise<Record<string, unknown>[]> {
    const since = Date.parse(reference.since) - HAND_OFF_CLOCK_SKEW_MS;
    const listed = resource === "Messages" ? "messages" : "calls";
    const found: Record<string, unknown>[] = [];
    let page = await request(resource, undefined, {
      query: [
        ["To", reference.to],
        ["From", reference.from],
        ["PageSize", String(HAND_OFF_SEARCH_PAGE_SIZE)],
      ],
    });
    for (let pages = 1; ; pages++) {
      const items = (page[listed] as Record<string, unknown>[] | undefined) ?? [];
      const created = (item: Record<string, unknown>) => Date.parse(String(item["date_created"] ?? ""));
      found.push(...items.filter((item) => created(item) >= since && item["direction"] === "outbound-api"));
      const next = page["next_page_uri"];
      if (items.length === 0 || created(items.at(-1)!) < since || typeof next !== "string" || next === "")
        return found.sort((a, b) => created(a) - created(b));
      if (pages === HAND_OFF_SEARCH_PAGES)
        throw new ProviderError(
          "transient",
          "lookup_inconclusive",
          `More than ${pages * HAND_OFF_SEARCH_PAGE_SIZE} ${listed} from ${reference.from} to ${reference.to} since ${reference.since}.`,
        );
      page = await twilioRequest({
        url: `${baseUrl}${next}`,
        authorization,
        label: resource,
        fetch: doFetch,
        ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}),
      });
    }
  }

  return {
    name: "twilio",
    ...(config.registrar
      ? { registration: config.registrar({ baseUrl: config.baseUrl, authorization, fetch: doFetch }) }
      : {}),

    async sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
      const form: Form = [
        ["To", input.to],
        ["From", input.from],
      ];
      if (input.body !== undefined && input.body !== "") form.push(["Body", input.body]);
      for (const media of input.media ?? []) form.push(["MediaUrl", media.url]);
      if (input.statusCallbackUrl) form.push(["StatusCallback", input.statusCallbackUrl]);
      const created = await request("Messages", form);
      const segments = Number.parseInt(String(created["num_segments"] ?? ""), 10);
      return {
        providerMessageId: String(created["sid"]),
        status: messageStatusFromTwilio(String(created["status"] ?? "")) ?? "Queued",
        ...(Number.isFinite(segments) && segments > 0 ? { segments } : {}),
      };
    },

    async placeCall(input: PlaceCallInput): Promise<PlaceCallResult> {
      const form: Form = [
        ["To", input.to],
        ["From", input.from],
      ];
      if (input.answerUrl) form.push(["Url", input.answerUrl]);
      else form.push(["Twiml", input.instructions ?? "<Response><Hangup/></Response>"]);
      if (input.statusCallbackUrl) {
        form.push(["StatusCallback", input.statusCallbackUrl], ["StatusCallbackMethod", "POST"]);
        for (const event of CALL_STATUS_CALLBACK_EVENTS) form.push(["StatusCallbackEvent", event]);
      }
      if (input.record) form.push(["Record", "true"]);
      if (input.ringTimeoutSeconds !== undefined) form.push(["Timeout", String(input.ringTimeoutSeconds)]);
      if (input.timeLimitSeconds !== undefined) form.push(["TimeLimit", String(input.timeLimitSeconds)]);
      const created = await request("Calls", form);
      return {
        providerCallId: String(created["sid"]),
        status: callStatusFromTwilio(String(created["status"] ?? "")) ?? "Queued",
      };
    },

    // Twilio takes no idempotency key: the message is the oldest of ours between the two numbers since the claim
    // with exactly its body (Twilio keeps the body as sent: no smart encoding or link shortening without a Messaging Service).
    async findSentMessage(reference: HandOffReference & { body?: string }): Promise<SendMessageResult | undefined> {
      const sent = (await outboundSince("Messages", reference)).find(
        (message) =>
          String(message["body"] ?? "") === (reference.body ?? "") &&
          !reference.exclude?.includes(String(message["sid"])),
      );
      if (!sent) return undefined;
      const segments = Number.parseInt(String(sent["num_segments"] ?? ""), 10);
      return {
        providerMessageId: String(sent["sid"]),
        status: messageStatusFromTwilio(String(sent["status"] ?? "")) ?? "Queued",
        ...(Number.isFinite(segments) && segments > 0 ? { segments } : {}),
      };
    },

    // A call carries nothing of ours Twilio lists (its instructions and callback URL are not on the resource): the
    // oldest outbound call between the two numbers since the claim.
    async findPlacedCall(reference: HandOffReference): Promise<PlaceCallResult | undefined> {
      const [placed] = await outboundSince("Calls", reference);
      return placed
        ? {
            providerCallId: String(placed["sid"]),
            status: callStatusFromTwilio(String(placed["status"] ?? "")) ?? "Queued",
          }
        : undefined;
    },

    async fetchMessageStatus(providerMessageId: string): Promise<MessageStatusReport | undefined> {
      const message = await fetchResource(`Messages/${encodeURIComponent(providerMessageId)}`);
      const providerStatus = String(message?.["status"] ?? "");
      const status = messageStatusFromTwilio(providerStatus);
      if (!message || status === undefined) return undefined;
      const errorCode = message["error_code"];
      return {
        providerMessageId: String(message["sid"] ?? providerMessageId),
        status,
        providerStatus,
        ...(errorCode !== null && errorCode !== undefined && errorCode !== "" ? { errorCode: String(errorCode) } : {}),
      };
    },

    async fetchCallStatus(providerCallId: string): Promise<CallStatusReport | undefined> {
      const call = await fetchResource(`Calls/${encodeURIComponent(providerCallId)}`);
      return call ? callReportFromTwilio(call, providerCallId) : undefined;
    },

    async searchAvailableNumbers(query: AvailableNumberQuery): Promise<AvailableNumber[]> {
      const filters: Form = [];
      if (query.areaCode) filters.push(["AreaCode", query.areaCode]);
      if (query.region) filters.push(["InRegion", query.region]);
      for (const capability of query.capabilities) filters.push([CAPABILITY_FILTERS[capability], "true"]);
      filters.push(["PageSize", String(query.limit)]);
      const page = await request(`AvailablePhoneNumbers/${query.country}/Local`, undefined, { query: filters });
      const offered = (page["available_phone_numbers"] as Record<string, unknown>[] | undefined) ?? [];
      return offered.map((number) => {
        const flags = (number["capabilities"] ?? {}) as Record<string, unknown>;
        return {
          phoneNumber: String(number["phone_number"]),
          region: (number["region"] as string | null | undefined) ?? null,
          locality: (number["locality"] as string | null | undefined) ?? null,
          capabilities: (["sms", "mms", "voice"] as const).filter(
            (capability) => flags[CAPABILITY_FLAGS[capability]] === true,
          ),
        };
      });
    },

    async buyNumber(phoneNumber: string, webhooks: NumberWebhooks): Promise<OwnedNumber> {
      const created = await request("IncomingPhoneNumbers", [["PhoneNumber", phoneNumber], ...webhookForm(webhooks)]);
      return { providerNumberId: String(created["sid"]), phoneNumber: String(created["phone_number"] ?? phoneNumber) };
    },

    async findOwnedNumber(phoneNumber: string): Promise<OwnedNumber | undefined> {
      const page = await request("IncomingPhoneNumbers", undefined, { query: [["PhoneNumber", phoneNumber]] });
      const held = ((page["incoming_phone_numbers"] as Record<string, unknown>[] | undefined) ?? []).find(
        (number) => number["phone_number"] === phoneNumber,
      );
      return held ? { providerNumberId: String(held["sid"]), phoneNumber } : undefined;
    },

    async configureNumber(providerNumberId: string, webhooks: NumberWebhooks): Promise<void> {
      await request(`IncomingPhoneNumbers/${encodeURIComponent(providerNumberId)}`, webhookForm(webhooks));
    },

    async releaseNumber(providerNumberId: string): Promise<void> {
      try {
        await request(`IncomingPhoneNumbers/${encodeURIComponent(providerNumberId)}`, undefined, { method: "DELETE" });
      } catch (error) {
        if (error instanceof ProviderError && error.details.httpStatus === 404) return;
        throw error;
      }
    },

    parseStatusCallback(request: WebhookRequest): ProviderEvent[] {
      const params = new URLSearchParams(request.body);
      const event = params.has("CallSid") ? callEvent(params) : messageEvent(params);
      return event === undefined ? [] : [event];
    },

    parseDialResult(request: WebhookRequest): DialResultEvent | undefined {
      return dialResult(new URLSearchParams(request.body));
    },

    parseInboundMessage(request: WebhookRequest): InboundMessage {
      return inboundMessage(new URLSearchParams(request.body));
    },

    verifyWebhookSignature(request: WebhookRequest): boolean {
      return verifyTwilioSignature({
        authToken: config.authToken,
        url: request.url,
        body: request.body,
        signature: headerValue(request.headers, "x-twilio-signature"),
        contentType: headerValue(request.headers, "content-type"),
      });
    },
  };
}

/** A carrier's clock may run behind ours: a resource created this long before our claim still counts as the hand-off's. */
export const HAND_OFF_CLOCK_SKEW_MS = 60_000;
/** Page size and most pages of a hand-off search (Twilio's page size is at most 1,000). */
const HAND_OFF_SEARCH_PAGE_SIZE = 50;
const HAND_OFF_SEARCH_PAGES = 4;

/** Twilio Advanced Opt-Out's `OptOutType` on an inbound message: which keyword class it matched (and answered). */
const OPT_OUT_TYPES: Record<string, "OptOut" | "OptIn" | "Help"> = { STOP: "OptOut", START: "OptIn", HELP: "Help" };

/** AvailablePhoneNumbers filters and the IncomingPhoneNumber capability flags of our capabilities. */
const CAPABILITY_FILTERS = { sms: "SmsEnabled", mms: "MmsEnabled", voice: "VoiceEnabled" } as const;
const CAPABILITY_FLAGS = { sms: "SMS", mms: "MMS", voice: "voice" } as const;

/** A number's webhooks as IncomingPhoneNumbers fields (POST everywhere). */
function webhookForm(webhooks: NumberWebhooks): Form {
  return [
    ["SmsUrl", webhooks.smsUrl],
    ["SmsMethod", "POST"],
    ["VoiceUrl", webhooks.voiceUrl],
    ["VoiceMethod", "POST"],
    ["StatusCallback", webhooks.voiceStatusCallbackUrl],
    ["StatusCallbackMethod", "POST"],
  ];
}

function optional(params: URLSearchParams, name: string): string | undefined {
  const value = params.get(name);
  return value === null || value === "" ? undefined : value;
}

function required(params: URLSearchParams, name: string): string {
  const value = optional(params, name);
  if (value === undefined) throw new ProviderError("permanent", "malformed_webhook", `Twilio webhook without ${name}`);
  return value;
}

function messageEvent(params: URLSearchParams): MessageStatusEvent | undefined {
  const providerStatus = optional(params, "MessageStatus") ?? optional(params, "SmsStatus");
  const status = providerStatus === undefined ? undefined : messageStatusFromTwilio(providerStatus);
  if (providerStatus === undefined || status === undefined) return undefined;
  const providerMessageId = optional(params, "MessageSid") ?? required(params, "SmsSid");
  const errorCode = optional(params, "ErrorCode");
  const from = optional(params, "From");
  const to = optional(params, "To");
  return {
    type: "message.status",
    providerMessageId,
    status,
    providerStatus,
    ...(errorCode !== undefined ? { errorCode } : {}),
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    dedupKey: `${providerMessageId}:${providerStatus}`,
  };
}

function callEvent(params: URLSearchParams): CallStatusEvent | undefined {
  const providerStatus = required(params, "CallStatus");
  const status = callStatusFromTwilio(providerStatus);
  if (status === undefined) return undefined;
  const providerCallId = required(params, "CallSid");
  const duration = Number.parseInt(optional(params, "CallDuration") ?? "", 10);
  const timestamp = optional(params, "Timestamp");
  const occurredAt = timestamp === undefined ? undefined : new Date(timestamp);
  const recordingUrl = optional(params, "RecordingUrl");
  const errorCode = optional(params, "ErrorCode");
  const sequence = optional(params, "SequenceNumber");
  return {
    type: "call.status",
    providerCallId,
    status,
    providerStatus,
    direction: (optional(params, "Direction") ?? "inbound").startsWith("outbound") ? "outbound" : "inbound",
    from: required(params, "From"),
    to: required(params, "To"),
    ...(Number.isFinite(duration) ? { durationSeconds: duration } : {}),
    ...(recordingUrl !== undefined ? { recordingUrl } : {}),
    ...(errorCode !== undefined ? { errorCode } : {}),
    ...(occurredAt !== undefined && !Number.isNaN(occurredAt.getTime())
      ? { occurredAt: occurredAt.toISOString() }
      : {}),
    dedupKey: `${providerCallId}:${providerStatus}${sequence === undefined ? "" : `:${sequence}`}`,
  };
}

function dialResult(params: URLSearchParams): DialResultEvent | undefined {
  const providerStatus = required(params, "DialCallStatus");
  const status = dialStatusFromTwilio(providerStatus);
  if (status === undefined) return undefined;
  const providerCallId = required(params, "CallSid");
  const duration = Number.parseInt(optional(params, "DialCallDuration") ?? "", 10);
  const dialedCallId = optional(params, "DialCallSid");
  return {
    type: "call.dial",
    providerCallId,
    direction: (optional(params, "Direction") ?? "inbound").startsWith("outbound") ? "outbound" : "inbound",
    status,
    providerStatus,
    ...(Number.isFinite(duration) ? { durationSeconds: duration } : {}),
    ...(dialedCallId !== undefined ? { dialedCallId } : {}),
    from: required(params, "From"),
    to: required(params, "To"),
    dedupKey: `${providerCallId}:dial:${providerStatus}`,
  };
}

function inboundMessage(params: URLSearchParams): InboundMessage {
  const providerMessageId = optional(params, "MessageSid") ?? required(params, "SmsSid");
  const count = Number.parseInt(optional(params, "NumMedia") ?? "0", 10);
  const media: InboundMessage["media"] = [];
  for (let index = 0; index < (Number.isFinite(count) ? count : 0); index++) {
    const url = optional(params, `MediaUrl${index}`);
    if (url !== undefined)
      media.push({ url, contentType: optional(params, `MediaContentType${index}`) ?? "application/octet-stream" });
  }
  const segments = Number.parseInt(optional(params, "NumSegments") ?? "", 10);
  const optOutType = optional(params, "OptOutType")?.toUpperCase();
  const carrierKind = optOutType === undefined ? undefined : OPT_OUT_TYPES[optOutType];
  return {
    ...(carrierKind
      ? { carrierKeyword: { kind: carrierKind, word: (params.get("Body") ?? "").trim().toUpperCase() || optOutType! } }
      : {}),
    type: "message.inbound",
    providerMessageId,
    from: required(params, "From"),
    to: required(params, "To"),
    body: params.get("Body") ?? "",
    media,
    ...(Number.isFinite(segments) ? { segments } : {}),
    dedupKey: `${providerMessageId}:received`,
  };
}
