import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as Twiml from "#core/calls/twiml";
import { ProviderError, type WebhookRequest } from "#core/providers/port";
import { parseDial } from "#core/providers/simulator/calls";
import { createTwilioProvider } from "#core/providers/twilio/adapter";
import { TWILIO_ERROR_KINDS, classifyTwilioError } from "#core/providers/twilio/errors";
import { callStatusFromTwilio, messageStatusFromTwilio } from "#core/providers/twilio/statuses";

type Exchange = {
  request: { method: string; url: string; headers: Record<string, string>; form: [string, string][] };
  response: { status: number; headers: Record<string, string>; body?: unknown; text?: string };
};

const fixture = <T>(name: string): T =>
  JSON.parse(readFileSync(new URL(`../fixtures/twilio/${name}`, import.meta.url), "utf8")) as T;
const credentials = fixture<{ accountSid: string; authToken: string; apiKeySid: string; apiKeySecret: string }>(
  "account.json",
);
const account = {
  accountSid: credentials.accountSid,
  authToken: credentials.authToken,
  apiKey: { sid: credentials.apiKeySid, secret: credentials.apiKeySecret },
};

/** A fetch that replays one recorded exchange and records what it was asked. */
function replay(name: string) {
  const exchange = fixture<Exchange>(name);
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    const { response } = exchange;
    const body = response.text ?? JSON.stringify(response.body);
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const provider = createTwilioProvider({ ...account, fetch: fetch as typeof globalThis.fetch });
  const sentRequest = () => {
    const call = calls[0];
    if (call === undefined) throw new Error("no request was made");
    const headers = new Headers(call.init.headers);
    return {
      method: call.init.method,
      url: call.url,
      authorization: headers.get("authorization"),
      contentType: headers.get("content-type"),
      form: [...new URLSearchParams(String(call.init.body))],
    };
  };
  return { provider, exchange, calls, sentRequest };
}

const sms = {
  from: "+12025550142",
  body: "Hi Dana, thanks for your request. Reply STOP to opt out.",
  idempotencyKey: "01JXMSG0000000000000000001",
  statusCallbackUrl: "https://api.example.com/webhooks/twilio/messages/status",
};

async function providerErrorOf(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ProviderError) return error;
    throw error;
  }
  throw new Error("expected a ProviderError");
}

describe("Twilio Messages API", () => {
  it("posts the form Twilio expects and returns the message sid and status", async () => {
    const { provider, exchange, sentRequest } = replay("messages-create-queued.json");
    const result = await provider.sendMessage({ ...sms, to: "+13125550187" });
    expect(sentRequest()).toEqual({
      method: exchange.request.method,
      url: exchange.request.url,
      authorization: exchange.request.headers["authorization"],
      contentType: exchange.request.headers["content-type"],
      form: exchange.request.form,
    });
    expect(result).toEqual({ providerMessageId: "SM5f1c0e9a2b7d4c38a6e1f0b9d2c7a4e1", status: "Queued", segments: 1 });
  });

  it("sends media as MediaUrl and omits an empty body", async () => {
    const { provider, exchange, sentRequest } = replay("messages-create-mms-queued.json");
    const result = await provider.sendMessage({
      ...sms,
      to: "+13125550187",
      body: "",
      media: [{ url: "https://cdn.example.com/media/brochure.jpg", contentType: "image/jpeg" }],
    });
    expect(sentRequest().form).toEqual(exchange.request.form);
    expect(result.providerMessageId).toBe("MM8a2d4f6c1e3b5a7092c4e6f8a1b3d5c7");
  });

  it.each([
    ["messages-create-21610-unsubscribed.json", "+13125550111", "optedOut", "21610", 400, undefined],
    ["messages-create-21211-invalid-to.json", "+13125550112", "permanent", "21211", 400, undefined],
    ["messages-create-20429-too-many-requests.json", "+13125550187", "transient", "20429", 429, 2],
    ["messages-create-503-unavailable.json", "+13125550187", "transient", "http_503", 503, undefined],
  ] as const)("%s → %s %s", async (name, to, kind, code, httpStatus, retryAfterSeconds) => {
    const { provider } = replay(name);
    const error = await providerErrorOf(provider.sendMessage({ ...sms, to }));
    expect(error).toMatchObject({ kind, code, details: { httpStatus } });
    expect(error.details.retryAfterSeconds).toBe(retryAfterSeconds);
    expect(error.details.ambiguous).toBeUndefined();
  });

  it("fetches a message's status: the Message resource by sid, its status and error code", async () => {
    const { provider, exchange, calls, sentRequest } = replay("messages-fetch-undelivered-30003.json");
    const report = await provider.fetchMessageStatus!("SM5d2a7c9e1b3f4a6c8e0b2d4f6a8c1e3b");
    expect(sentRequest()).toMatchObject({
      method: "GET",
      url: exchange.request.url,
      authorization: exchange.request.headers.authorization,
    });
    expect(calls[0]?.init.body).toBeUndefined();
    expect(report).toEqual({
      providerMessageId: "SM5d2a7c9e1b3f4a6c8e0b2d4f6a8c1e3b",
      status: "Undelivered",
      providerStatus: "undelivered",
      errorCode: "30003",
    });
  });

  it("answers no status for a message Twilio does not know (404)", async () => {
    const { provider, exchange, sentRequest } = replay("messages-fetch-20404-not-found.json");
    expect(await provider.fetchMessageStatus!("SM00000000000000000000000000000000")).toBeUndefined();
    expect(sentRequest().url).toBe(exchange.request.url);
  });

  it("reports a network failure as transient and ambiguous", async () => {
    const provider = createTwilioProvider({
      ...account,
      fetch: (async () => {
        throw new TypeError("fetch failed");
      }) as typeof fetch,
    });
    const error = await providerErrorOf(provider.sendMessage({ ...sms, to: "+13125550187" }));
    expect(error).toMatchObject({ kind: "transient", code: "network_error", details: { ambiguous: true } });
  });

  it("reports a timeout as transient and ambiguous", async () => {
    const provider = createTwilioProvider({
      ...account,
      timeoutMs: 20,
      fetch: ((_url: string, init?: RequestInit) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        })) as typeof fetch,
    });
    const error = await providerErrorOf(provider.sendMessage({ ...sms, to: "+13125550187" }));
    expect(error).toMatchObject({ kind: "transient", code: "timeout", details: { ambiguous: true } });
  });
});

describe("Twilio Calls API", () => {
  it("posts the call with answer URL and every progress callback event", async () => {
    const { provider, exchange, sentRequest } = replay("calls-create-queued.json");
    const result = await provider.placeCall({
      from: "+12025550142",
      to: "+13125550187",
      idempotencyKey: "01JXCALL000000000000000001",
      answerUrl: "https://api.example.com/webhooks/twilio/calls/answer",
      statusCallbackUrl: "https://api.example.com/webhooks/twilio/calls/status",
      ringTimeoutSeconds: 25,
    });
    expect(sentRequest()).toMatchObject({ url: exchange.request.url, form: exchange.request.form });
    expect(result).toEqual({ providerCallId: "CA7e2b9d4f1a6c3e8b0d5f2a7c4e9b1d36", status: "Queued" });
  });

  it("sends inline TwiML when there is no answer URL", async () => {
    const { provider, sentRequest } = replay("calls-create-queued.json");
    await provider.placeCall({
      from: "+12025550142",
      to: "+13125550187",
      idempotencyKey: "k",
      instructions: "<Response><Say>Hi</Say></Response>",
      record: true,
    });
    expect(sentRequest().form).toEqual([
      ["To", "+13125550187"],
      ["From", "+12025550142"],
      ["Twiml", "<Response><Say>Hi</Say></Response>"],
      ["Record", "true"],
    ]);
  });

  it("places a click-to-call: rings the agent with TwiML that whispers, then dials the lead with our number as caller id", async () => {
    const { provider, sentRequest } = replay("calls-create-queued.json");
    const twiml = Twiml.bridge({
      whisper: "Lead from <spring> & co",
      lead: "+13125550187",
      ringSeconds: 25,
      action: "https://api.example.com/webhooks/twilio/calls/dial?callId=01JXCALL000000000000000001",
      callerId: "+12025550142",
      timeLimitSeconds: 3600,
    });
    await provider.placeCall({
      from: "+12025550142",
      to: "+14155550120",
      idempotencyKey: "k",
      instructions: twiml,
      ringTimeoutSeconds: 30,
      timeLimitSeconds: 3685,
    });
    expect(sentRequest()).toMatchObject({
      method: "POST",
      authorization: expect.stringMatching(/^Basic /),
      contentType: "application/x-www-form-urlencoded",
    });
    expect(sentRequest().form).toEqual([
      ["To", "+14155550120"],
      ["From", "+12025550142"],
      [
        "Twiml",
        '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Lead from &lt;spring&gt; &amp; co</Say>' +
          '<Dial timeout="25" timeLimit="3600" action="https://api.example.com/webhooks/twilio/calls/dial?callId=01JXCALL000000000000000001" method="POST" callerId="+12025550142">' +
          "<Number>+13125550187</Number></Dial></Response>",
      ],
      ["Timeout", "30"],
      ["TimeLimit", "3685"],
    ]);
    // The simulator reads the same document as the carrier would.
    expect(parseDial(twiml)).toMatchObject({ forwardTo: "+13125550187", timeoutSeconds: 25, callerId: "+12025550142" });
  });

  it("maps a geo-permission refusal to a permanent error", async () => {
    const { provider } = replay("calls-create-21215-geo-permission.json");
    const error = await providerErrorOf(
      provider.placeCall({
        from: "+12025550142",
        to: "+13125550187",
        idempotencyKey: "k",
        answerUrl: "https://api.example.com/webhooks/twilio/calls/answer",
      }),
    );
    expect(error).toMatchObject({ kind: "permanent", code: "21215" });
  });

  it("fetches a call's status: the Call resource by sid, its status and talk time", async () => {
    const { provider, exchange, calls, sentRequest } = replay("calls-fetch-completed.json");
    const report = await provider.fetchCallStatus!("CA7e2b9d4f1a6c3e8b0d5f2a7c4e9b1d36");
    expect(sentRequest()).toMatchObject({
      method: "GET",
      url: exchange.request.url,
      authorization: exchange.request.headers.authorization,
    });
    expect(calls[0]?.init.body).toBeUndefined();
    expect(report).toEqual({
      providerCallId: "CA7e2b9d4f1a6c3e8b0d5f2a7c4e9b1d36",
      status: "Completed",
      providerStatus: "completed",
      direction: "outbound",
      durationSeconds: 95,
    });
  });

  it("answers no status for a call Twilio does not know (404)", async () => {
    const { provider } = replay("calls-fetch-20404-not-found.json");
    expect(await provider.fetchCallStatus!("CA00000000000000000000000000000000")).toBeUndefined();
  });
});

describe("Twilio webhooks", () => {
  const provider = createTwilioProvider(account);
  const webhook = (name: string) => fixture<WebhookRequest>(name);

  it.each([
    "webhook-message-sent.json",
    "webhook-message-delivered.json",
    "webhook-message-undelivered-30003.json",
    "webhook-inbound-stop.json",
    "webhook-inbound-mms.json",
    "webhook-call-ringing.json",
    "webhook-call-completed.json",
    "webhook-call-no-answer.json",
    "webhook-inbound-call.json",
    "webhook-call-dial-completed.json",
    "webhook-call-dial-no-answer.json",
    "webhook-call-bridge-dial-completed.json",
  ])("%s carries a valid signature", (name) => {
    expect(provider.verifyWebhookSignature(webhook(name))).toBe(true);
  });

  it("rejects a signed webhook whose body was altered or whose signature is missing", () => {
    const delivered = webhook("webhook-message-delivered.json");
    expect(provider.verifyWebhookSignature({ ...delivered, body: delivered.body.replace("delivered", "failed") })).toBe(
      false,
    );
    expect(
      provider.verifyWebhookSignature({
        ...delivered,
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
    ).toBe(false);
    expect(
      provider.verifyWebhookSignature({
        ...delivered,
        headers: { "X-Twilio-Signature": delivered.headers["x-twilio-signature"] },
      }),
    ).toBe(true);
  });

  it.each([
    ["webhook-message-sent.json", { status: "Sent", providerStatus: "sent" }],
    ["webhook-message-delivered.json", { status: "Delivered", providerStatus: "delivered" }],
    [
      "webhook-message-undelivered-30003.json",
      { status: "Undelivered", providerStatus: "undelivered", errorCode: "30003" },
    ],
  ])("%s is a message status event", (name, expected) => {
    expect(provider.parseStatusCallback(webhook(name))).toEqual([
      {
        type: "message.status",
        providerMessageId: "SM5f1c0e9a2b7d4c38a6e1f0b9d2c7a4e1",
        from: "+12025550142",
        to: "+13125550187",
        dedupKey: `SM5f1c0e9a2b7d4c38a6e1f0b9d2c7a4e1:${expected.providerStatus}`,
        ...expected,
      },
    ]);
  });

  it("parses a completed call with duration, recording and time", () => {
    expect(provider.parseStatusCallback(webhook("webhook-call-completed.json"))).toEqual([
      {
        type: "call.status",
        providerCallId: "CA7e2b9d4f1a6c3e8b0d5f2a7c4e9b1d36",
        status: "Completed",
        providerStatus: "completed",
        direction: "outbound",
        from: "+12025550142",
        to: "+13125550187",
        durationSeconds: 75,
        recordingUrl:
          "https://api.twilio.com/2010-04-01/Accounts/AC3f9c2a8e41b7d05c6e9a1f4b2d8c7e60/Recordings/RE6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e",
        occurredAt: "2025-06-10T16:06:42.000Z",
        dedupKey: "CA7e2b9d4f1a6c3e8b0d5f2a7c4e9b1d36:completed:3",
      },
    ]);
  });

  it("parses ringing, no-answer and an incoming call", () => {
    expect(provider.parseStatusCallback(webhook("webhook-call-ringing.json"))).toMatchObject([
      { status: "Ringing", direction: "outbound" },
    ]);
    expect(provider.parseStatusCallback(webhook("webhook-call-no-answer.json"))).toMatchObject([
      { status: "NoAnswer", durationSeconds: 0 },
    ]);
    expect(provider.parseStatusCallback(webhook("webhook-inbound-call.json"))).toMatchObject([
      { status: "Ringing", direction: "inbound", from: "+13125550187", to: "+12025550142" },
    ]);
  });

  it("parses a Dial action: a forwarded call that was answered, and one that rang out", () => {
    const common = {
      type: "call.dial",
      direction: "inbound",
      providerCallId: "CA0f1e2d3c4b5a69788796a5b4c3d2e1f0",
      dialedCallId: "CA9a8b7c6d5e4f30211203f4e5d6c7b8a9",
      from: "+13125550187",
      to: "+12025550142",
    };
    expect(provider.parseDialResult(webhook("webhook-call-dial-completed.json"))).toEqual({
      ...common,
      status: "Completed",
      providerStatus: "completed",
      durationSeconds: 37,
      dedupKey: "CA0f1e2d3c4b5a69788796a5b4c3d2e1f0:dial:completed",
    });
    expect(provider.parseDialResult(webhook("webhook-call-dial-no-answer.json"))).toEqual({
      ...common,
      status: "NoAnswer",
      providerStatus: "no-answer",
      dedupKey: "CA0f1e2d3c4b5a69788796a5b4c3d2e1f0:dial:no-answer",
    });
  });

  it("parses the Dial action of a bridged click-to-call: the parent leg is outbound, from our number to the agent", () => {
    const bridged = webhook("webhook-call-bridge-dial-completed.json");
    expect(provider.verifyWebhookSignature(bridged)).toBe(true);
    expect(provider.parseDialResult(bridged)).toEqual({
      type: "call.dial",
      direction: "outbound",
      providerCallId: "CA1b2c3d4e5f60718293a4b5c6d7e8f901",
      dialedCallId: "CA2c3d4e5f60718293a4b5c6d7e8f90a12",
      from: "+12025550142",
      to: "+14155550120",
      status: "Completed",
      providerStatus: "completed",
      durationSeconds: 64,
      dedupKey: "CA1b2c3d4e5f60718293a4b5c6d7e8f901:dial:completed",
    });
  });

  it.each([
    ["answered", "Completed"],
    ["busy", "Busy"],
    ["failed", "Failed"],
    ["canceled", "Canceled"],
    ["ringing", "NoAnswer"],
    ["whatever", undefined],
  ])("maps DialCallStatus %s to %s", (word, status) => {
    const dial = webhook("webhook-call-dial-no-answer.json");
    const result = provider.parseDialResult({
      ...dial,
      body: dial.body.replace("DialCallStatus=no-answer", `DialCallStatus=${word}`),
    });
    expect(result?.status).toBe(status);
  });

  it("reads Advanced Opt-Out's OptOutType: the carrier matched (and answered) the keyword itself", () => {
    const stop = webhook("webhook-inbound-stop.json");
    for (const [type, kind] of [
      ["STOP", "OptOut"],
      ["START", "OptIn"],
      ["HELP", "Help"],
    ] as const) {
      const parsed = provider.parseInboundMessage({ ...stop, body: `${stop.body}&OptOutType=${type}` });
      expect(parsed.carrierKeyword).toEqual({ kind, word: "STOP" });
    }
    expect(provider.parseInboundMessage(stop).carrierKeyword).toBeUndefined();
  });

  it("parses an inbound STOP and an inbound MMS", () => {
    expect(provider.parseInboundMessage(webhook("webhook-inbound-stop.json"))).toEqual({
      type: "message.inbound",
      providerMessageId: "SM0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a",
      from: "+13125550187",
      to: "+12025550142",
      body: "Stop",
      media: [],
      segments: 1,
      dedupKey: "SM0d9c8b7a6f5e4d3c2b1a0f9e8d7c6b5a:received",
    });
    expect(provider.parseInboundMessage(webhook("webhook-inbound-mms.json"))).toMatchObject({
      body: "Here's the house 🏠 & garage",
      media: [{ contentType: "image/jpeg", url: expect.stringContaining("/Media/ME4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c") }],
    });
  });

  it("ignores callbacks with a status it does not track and refuses malformed ones", () => {
    expect(
      provider.parseStatusCallback({ url: "https://x", headers: {}, body: "MessageSid=SM1&MessageStatus=mystery" }),
    ).toEqual([]);
    expect(() => provider.parseInboundMessage({ url: "https://x", headers: {}, body: "Body=hi" })).toThrow(
      ProviderError,
    );
  });
});

describe("Twilio code tables", () => {
  it.each([
    ["21610", 400, "optedOut"],
    ["21211", 400, "permanent"],
    ["21614", 400, "permanent"],
    ["30003", 400, "permanent"],
    ["20429", 429, "transient"],
    ["30001", 400, "transient"],
    ["99999", 400, "permanent"],
    ["99999", 429, "transient"],
    ["99999", 502, "transient"],
    [undefined, 500, "transient"],
    [undefined, 404, "permanent"],
  ] as const)("error %s (HTTP %s) is %s", (code, httpStatus, kind) => {
    expect(classifyTwilioError(code, httpStatus)).toBe(kind);
  });

  it("documents a meaning for every listed code", () => {
    for (const entry of Object.values(TWILIO_ERROR_KINDS)) expect(entry.meaning.length).toBeGreaterThan(0);
  });

  it.each([
    ["accepted", "Queued"],
    ["scheduled", "Scheduled"],
    ["queued", "Queued"],
    ["sending", "Sending"],
    ["sent", "Sent"],
    ["delivered", "Delivered"],
    ["read", "Delivered"],
    ["undelivered", "Undelivered"],
    ["failed", "Failed"],
    ["canceled", "Canceled"],
    ["received", "Received"],
    ["DELIVERED", "Delivered"],
  ])("MessageStatus %s is %s", (providerStatus, status) => {
    expect(messageStatusFromTwilio(providerStatus)).toBe(status);
  });

  it.each([
    ["queued", "Queued"],
    ["initiated", "Queued"],
    ["ringing", "Ringing"],
    ["in-progress", "InProgress"],
    ["answered", "InProgress"],
    ["completed", "Completed"],
    ["busy", "Busy"],
    ["no-answer", "NoAnswer"],
    ["failed", "Failed"],
    ["canceled", "Canceled"],
  ])("CallStatus %s is %s", (providerStatus, status) => {
    expect(callStatusFromTwilio(providerStatus)).toBe(status);
  });

  it("knows nothing of unknown words", () => {
    expect(messageStatusFromTwilio("mystery")).toBeUndefined();
    expect(callStatusFromTwilio("mystery")).toBeUndefined();
  });
});

describe("Twilio credentials", () => {
  it("authenticates REST requests with the API key and secret, never the auth token; without a key it refuses before any request", async () => {
    const { provider, sentRequest } = replay("messages-create-queued.json");
    await provider.sendMessage({ ...sms, to: "+13125550187" });
    const sent = Buffer.from(String(sentRequest().authorization).replace(/^Basic /, ""), "base64").toString();
    expect(sent).toBe(`${credentials.apiKeySid}:${credentials.apiKeySecret}`);
    expect(sent).not.toContain(credentials.authToken);
    let asked = false;
    const tokenOnly = createTwilioProvider({
      accountSid: credentials.accountSid,
      authToken: credentials.authToken,
      fetch: (async () => {
        asked = true;
        return new Response("{}");
      }) as typeof globalThis.fetch,
    });
    expect(await providerErrorOf(tokenOnly.sendMessage({ ...sms, to: "+13125550187" }))).toMatchObject({
      kind: "permanent",
      code: "provider_not_configured",
    });
    expect(asked).toBe(false);
    expect(tokenOnly.verifyWebhookSignature(fixture<WebhookRequest>("webhook-message-delivered.json"))).toBe(true);
  });
});

describe("Twilio numbers API (AvailablePhoneNumbers, IncomingPhoneNumbers)", () => {
  const accountUrl = `https://api.twilio.com/2010-04-01/Accounts/${account.accountSid}`;
  const authorization = `Basic ${Buffer.from(`${credentials.apiKeySid}:${credentials.apiKeySecret}`).toString("base64")}`;
  const webhooks = {
    smsUrl: "https://api.example.com/webhooks/twilio/messages/inbound",
    voiceUrl: "https://api.example.com/webhooks/twilio/calls/inbound",
    voiceStatusCallbackUrl: "https://api.example.com/webhooks/twilio/calls/status",
  };
  const webhookForm = [
    ["SmsUrl", webhooks.smsUrl],
    ["SmsMethod", "POST"],
    ["VoiceUrl", webhooks.voiceUrl],
    ["VoiceMethod", "POST"],
    ["StatusCallback", webhooks.voiceStatusCallbackUrl],
    ["StatusCallbackMethod", "POST"],
  ];

  /** A fake of the REST API: answers each request in turn and records exactly what was asked. */
  function fake(...responses: { status: number; body?: unknown }[]) {
    const seen: { method: string; url: string; authorization: string | null; form: [string, string][] }[] = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      const headers = new Headers(init?.headers);
      seen.push({
        method: init?.method ?? "GET",
        url: String(url),
        authorization: headers.get("authorization"),
        form: init?.body ? [...new URLSearchParams(String(init.body))] : [],
      });
      const next = responses[seen.length - 1] ?? { status: 500 };
      return new Response(next.body === undefined ? null : JSON.stringify(next.body), {
        status: next.status,
        headers: { "content-type": "application/json" },
      });
    };
    return { provider: createTwilioProvider({ ...account, fetch: fetch as typeof globalThis.fetch }), seen };
  }

  it("searches local numbers with AreaCode, InRegion and capability filters, reading each number's capability flags", async () => {
    const { provider, seen } = fake({
      status: 200,
      body: {
        available_phone_numbers: [
          {
            phone_number: "+14155550123",
            friendly_name: "(415) 555-0123",
            locality: "San Francisco",
            region: "CA",
            iso_country: "US",
            capabilities: { voice: true, SMS: true, MMS: false },
          },
        ],
        uri: "/2010-04-01/Accounts/AC…/AvailablePhoneNumbers/US/Local.json",
      },
    });
    const found = await provider.searchAvailableNumbers!({
      country: "US",
      areaCode: "415",
      region: "CA",
      capabilities: ["sms", "voice"],
      limit: 5,
    });
    expect(seen).toEqual([
      {
        method: "GET",
        url: `${accountUrl}/AvailablePhoneNumbers/US/Local.json?AreaCode=415&InRegion=CA&SmsEnabled=true&VoiceEnabled=true&PageSize=5`,
        authorization,
        form: [],
      },
    ]);
    expect(found).toEqual([
      { phoneNumber: "+14155550123", region: "CA", locality: "San Francisco", capabilities: ["sms", "voice"] },
    ]);
  });

  it("buys a number with its SMS and voice webhooks, and configures a held one the same way", async () => {
    const { provider, seen } = fake(
      { status: 201, body: { sid: "PN0123456789abcdef0123456789abcdef", phone_number: "+14155550123" } },
      { status: 200, body: { sid: "PN0123456789abcdef0123456789abcdef" } },
    );
    expect(await provider.buyNumber!("+14155550123", webhooks)).toEqual({
      providerNumberId: "PN0123456789abcdef0123456789abcdef",
      phoneNumber: "+14155550123",
    });
    await provider.configureNumber!("PN0123456789abcdef0123456789abcdef", webhooks);
    expect(seen).toEqual([
      {
        method: "POST",
        url: `${accountUrl}/IncomingPhoneNumbers.json`,
        authorization,
        form: [["PhoneNumber", "+14155550123"], ...webhookForm],
      },
      {
        method: "POST",
        url: `${accountUrl}/IncomingPhoneNumbers/PN0123456789abcdef0123456789abcdef.json`,
        authorization,
        form: webhookForm,
      },
    ]);
  });

  it("proves ownership by listing IncomingPhoneNumbers filtered by PhoneNumber; none held is undefined", async () => {
    const { provider, seen } = fake(
      {
        status: 200,
        body: { incoming_phone_numbers: [{ sid: "PN0123456789abcdef0123456789abcdef", phone_number: "+14155550123" }] },
      },
      { status: 200, body: { incoming_phone_numbers: [] } },
    );
    expect(await provider.findOwnedNumber!("+14155550123")).toEqual({
      providerNumberId: "PN0123456789abcdef0123456789abcdef",
      phoneNumber: "+14155550123",
    });
    expect(await provider.findOwnedNumber!("+14155550124")).toBeUndefined();
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      `GET ${accountUrl}/IncomingPhoneNumbers.json?PhoneNumber=%2B14155550123`,
      `GET ${accountUrl}/IncomingPhoneNumbers.json?PhoneNumber=%2B14155550124`,
    ]);
  });

  it("releases with DELETE (204); a number Twilio no longer holds (404) counts as released; a 5xx is a transient error", async () => {
    const { provider, seen } = fake(
      { status: 204 },
      { status: 404, body: { code: 20404, message: "not found", status: 404 } },
      { status: 503, body: { code: 20503, message: "Service unavailable", status: 503 } },
    );
    await provider.releaseNumber!("PN0123456789abcdef0123456789abcdef");
    await provider.releaseNumber!("PN0123456789abcdef0123456789abcdef");
    const error = await providerErrorOf(provider.releaseNumber!("PN0123456789abcdef0123456789abcdef"));
    expect(error.kind).toBe("transient");
    expect(seen.map((request) => request.method)).toEqual(["DELETE", "DELETE", "DELETE"]);
    expect(seen[0]).toMatchObject({
      url: `${accountUrl}/IncomingPhoneNumbers/PN0123456789abcdef0123456789abcdef.json`,
      authorization,
      form: [],
    });
  });
});

describe("Twilio hand-off search (a send or placement cut short by a crash)", () => {
  const claimed = { from: "+12025550142", idempotencyKey: "01JXMSG0000000000000000001" };

  it("finds our message by To and From (Twilio takes no key), created since the claim, sent by the API, with its exact body", async () => {
    const { provider, exchange, calls, sentRequest } = replay("messages-list-between.json");
    const found = await provider.findSentMessage!({
      ...claimed,
      to: "+13125550187",
      body: sms.body,
      since: "2026-11-21T14:02:10.000Z",
    });
    expect(sentRequest()).toMatchObject({
      method: "GET",
      url: exchange.request.url,
      authorization: exchange.request.headers["authorization"],
    });
    expect(calls).toHaveLength(1);
    // Not the later message (another body), nor the TwiML reply of the same text, nor yesterday's.
    expect(found).toEqual({ providerMessageId: "SM5f1c0e9a2b7d4c38a6e1f0b9d2c7a4e1", status: "Sent", segments: 1 });
  });

  it("answers not taken when no message since the claim has the body", async () => {
    const { provider } = replay("messages-list-between.json");
    const reference = { ...claimed, to: "+13125550187", since: "2026-11-21T14:02:10.000Z" };
    expect(await provider.findSentMessage!({ ...reference, body: "Another text" })).toBeUndefined();
    // Claimed after our message was created (beyond the clock skew allowed): not ours.
    expect(
      await provider.findSentMessage!({ ...reference, body: sms.body, since: "2026-11-21T14:03:30.000Z" }),
    ).toBeUndefined();
  });

  it("follows the pages back to the claim, and cannot say past four full pages", async () => {
    const page = (index: number, next: boolean) => ({
      messages: Array.from({ length: 50 }, (_, item) => ({
        sid: `SM${index}${item}`,
        body: "Newer",
        direction: "outbound-api",
        status: "delivered",
        date_created: new Date(Date.UTC(2026, 10, 21, 15) - (index * 50 + item) * 1000).toUTCString(),
      })),
      next_page_uri: next ? `/2010-04-01/Accounts/${account.accountSid}/Messages.json?Page=${index + 1}` : null,
    });
    const seen: string[] = [];
    const provider = createTwilioProvider({
      ...account,
      fetch: (async (url: string) => {
        seen.push(String(url));
        return new Response(JSON.stringify(page(seen.length - 1, true)), { status: 200 });
      }) as typeof fetch,
    });
    const error = await providerErrorOf(
      provider.findSentMessage!({ ...claimed, to: "+13125550187", body: sms.body, since: "2026-11-21T14:00:00Z" }),
    );
    expect(error).toMatchObject({ kind: "transient", code: "lookup_inconclusive" });
    expect(seen.slice(1)).toEqual(
      [1, 2, 3].map(
        (index) => `https://api.twilio.com/2010-04-01/Accounts/${account.accountSid}/Messages.json?Page=${index}`,
      ),
    );
  });

  it("finds our placed call: the oldest outbound-api call between the two numbers since the claim", async () => {
    const { provider, exchange, sentRequest } = replay("calls-list-between.json");
    const found = await provider.findPlacedCall!({
      from: "+12025550142",
      to: "+14155550120",
      idempotencyKey: "01JXCALL000000000000000001",
      since: "2026-11-21T14:10:00.000Z",
    });
    expect(sentRequest()).toMatchObject({ method: "GET", url: exchange.request.url });
    expect(found).toEqual({ providerCallId: "CA3e5a7c9b1d2f4a6c8e0b2d4f6a8c1e3b", status: "Ringing" });
    const { provider: later } = replay("calls-list-between.json");
    expect(
      await later.findPlacedCall!({
        from: "+12025550142",
        to: "+14155550120",
        idempotencyKey: "01JXCALL000000000000000002",
        since: "2026-11-21T14:20:00.000Z",
      }),
    ).toBeUndefined();
  });
});
