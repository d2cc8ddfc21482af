import { generateKeyPairSync, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { providerByName } from "#core/providers/index";
import { ProviderError } from "#core/providers/port";
import { classifyTelnyxError, createTelnyxProvider } from "#core/providers/telnyx/adapter";

const raw = (name: string) =>
  JSON.stringify(JSON.parse(readFileSync(new URL(`../fixtures/telnyx/${name}`, import.meta.url), "utf8")));
const keys = generateKeyPairSync("ed25519");
/** The raw 32-byte public key, base64, as Telnyx shows it. */
const publicKey = keys.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("base64");
const NOW = 1_795_000_000_000;

function signed(body: string, timestamp = String(Math.floor(NOW / 1000))) {
  const signature = sign(null, Buffer.from(`${timestamp}|${body}`), keys.privateKey).toString("base64");
  return {
    url: "https://api.example.com/webhooks/telnyx/messages/status",
    headers: {
      "Telnyx-Signature-Ed25519": signature,
      "Telnyx-Timestamp": timestamp,
      "content-type": "application/json",
    },
    body,
  };
}

function fake(...responses: { status: number; body?: unknown }[]) {
  const seen: { method: string; url: string; authorization: string | null; body: unknown }[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    seen.push({
      method: init?.method ?? "GET",
      url: String(url),
      authorization: headers.get("authorization"),
      body: init?.body ? JSON.parse(String(init.body)) : undefined,
    });
    const next = responses[seen.length - 1] ?? { status: 500 };
    return new Response(next.body === undefined ? null : JSON.stringify(next.body), {
      status: next.status,
      headers: { "content-type": "application/json" },
    });
  };
  return {
    provider: createTelnyxProvider({
      apiKey: "KEY0123",
      publicKey,
      fetch: fetch as typeof globalThis.fetch,
      now: () => NOW,
    }),
    seen,
  };
}

describe("Telnyx messaging API v2", () => {
  it("sends an SMS as JSON with a Bearer key and a per-message webhook_url", async () => {
    const { provider, seen } = fake({
      status: 200,
      body: {
        data: {
          id: "40317c5b-0f8a-4a1b-b5d5-bf6c9a3c21aa",
          parts: 2,
          to: [{ phone_number: "+13125550187", status: "queued" }],
        },
      },
    });
    const result = await provider.sendMessage({
      from: "+12025550142",
      to: "+13125550187",
      body: "Hi",
      idempotencyKey: "k",
      statusCallbackUrl: "https://api.example.com/webhooks/telnyx/messages/status?messageId=m1",
    });
    expect(seen).toEqual([
      {
        method: "POST",
        url: "https://api.telnyx.com/v2/messages",
        authorization: "Bearer KEY0123",
        body: {
          from: "+12025550142",
          to: "+13125550187",
          text: "Hi",
          webhook_url: "https://api.example.com/webhooks/telnyx/messages/status?messageId=m1",
        },
      },
    ]);
    expect(result).toEqual({
      providerMessageId: "40317c5b-0f8a-4a1b-b5d5-bf6c9a3c21aa",
      status: "Queued",
      segments: 2,
    });
  });

  it("sends MMS media as media_urls", async () => {
    const { provider, seen } = fake({ status: 200, body: { data: { id: "m", to: [{ status: "queued" }] } } });
    await provider.sendMessage({
      from: "+12025550142",
      to: "+13125550187",
      media: [{ url: "https://cdn.example.com/a.png" }],
      idempotencyKey: "k",
    });
    expect(seen[0]?.body).toEqual({
      from: "+12025550142",
      to: "+13125550187",
      media_urls: ["https://cdn.example.com/a.png"],
      type: "MMS",
    });
  });

  it.each([
    [429, "10011", "transient"],
    [503, undefined, "transient"],
    [400, "40300", "optedOut"],
    [422, "10002", "permanent"],
    [400, "40012", "permanent"],
  ] as const)("maps HTTP %s / code %s to %s", async (status, code, kind) => {
    const { provider } = fake({
      status,
      body: { errors: code ? [{ code, title: "Refused", detail: "Refused by Telnyx" }] : [] },
    });
    const error = await provider
      .sendMessage({ from: "+12025550142", to: "+13125550187", body: "Hi", idempotencyKey: "k" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind, code: code ?? `http_${status}` });
    expect(classifyTelnyxError(code, status)).toBe(kind);
  });

  it("looks a message up (GET /v2/messages/{id}): its recipient status and error; 404 is unknown", async () => {
    const { provider, seen } = fake(
      {
        status: 200,
        body: {
          data: {
            id: "m1",
            to: [{ phone_number: "+13125550187", status: "delivery_failed" }],
            errors: [{ code: "40008", title: "Undeliverable" }],
          },
        },
      },
      { status: 404, body: { errors: [{ code: "10005", title: "Resource not found" }] } },
    );
    expect(await provider.fetchMessageStatus!("m1")).toEqual({
      providerMessageId: "m1",
      status: "Undelivered",
      providerStatus: "delivery_failed",
      errorCode: "40008",
    });
    expect(await provider.fetchMessageStatus!("gone")).toBeUndefined();
    expect(seen.map((request) => `${request.method} ${request.url} ${request.authorization}`)).toEqual([
      "GET https://api.telnyx.com/v2/messages/m1 Bearer KEY0123",
      "GET https://api.telnyx.com/v2/messages/gone Bearer KEY0123",
    ]);
  });

  it("refuses calls without a TeXML application, before any request", async () => {
    const { provider, seen } = fake();
    await expect(
      provider.placeCall({ from: "+12025550142", to: "+13125550187", idempotencyKey: "k" }),
    ).rejects.toMatchObject({ kind: "permanent", code: "provider_not_configured" });
    expect(seen).toEqual([]);
  });

  it("places a bridged call through TeXML with the same inline instructions, and parses its Twilio-compatible callbacks", async () => {
    const seen: { url: string; body: unknown; authorization: string | null }[] = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      seen.push({
        url: String(url),
        body: JSON.parse(String(init?.body)),
        authorization: new Headers(init?.headers).get("authorization"),
      });
      return new Response(
        JSON.stringify({ call_sid: "v3:abc", from: "+12025550142", to: "+14155550120", status: "queued" }),
        { status: 200 },
      );
    };
    const provider = createTelnyxProvider({
      apiKey: "KEY0123",
      publicKey,
      texmlConnectionId: "1894",
      fetch: fetch as typeof globalThis.fetch,
      now: () => NOW,
    });
    const twiml =
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial timeout="25" action="https://api.example.com/webhooks/telnyx/calls/dial?callId=c1" method="POST" callerId="+12025550142"><Number>+13125550187</Number></Dial></Response>';
    const placed = await provider.placeCall({
      from: "+12025550142",
      to: "+14155550120",
      idempotencyKey: "c1",
      instructions: twiml,
      statusCallbackUrl: "https://api.example.com/webhooks/telnyx/calls/status?callId=c1",
      ringTimeoutSeconds: 30,
      timeLimitSeconds: 3685,
    });
    expect(placed).toEqual({ providerCallId: "v3:abc", status: "Queued" });
    expect(seen).toEqual([
      {
        url: "https://api.telnyx.com/v2/texml/calls/1894",
        authorization: "Bearer KEY0123",
        body: {
          From: "+12025550142",
          To: "+14155550120",
          Texml: twiml,
          StatusCallback: "https://api.example.com/webhooks/telnyx/calls/status?callId=c1",
          StatusCallbackMethod: "POST",
          StatusCallbackEvent: "initiated ringing answered completed",
          Timeout: 30,
          TimeLimit: 3685,
        },
      },
    ]);
    const form =
      "AccountSid=ACx&CallSid=v3%3Aabc&CallStatus=in-progress&Direction=outbound-api&From=%2B12025550142&To=%2B14155550120";
    expect(provider.parseStatusCallback(signed(form))).toMatchObject([
      { type: "call.status", providerCallId: "v3:abc", status: "InProgress", direction: "outbound" },
    ]);
    expect(provider.parseDialResult(signed(`${form}&DialCallStatus=completed&DialCallDuration=64`))).toMatchObject({
      direction: "outbound",
      status: "Completed",
      durationSeconds: 64,
      from: "+12025550142",
    });
    expect(provider.verifyWebhookSignature(signed(form))).toBe(true);
  });
});

describe("Telnyx call lookup (the call sweep)", () => {
  it("fetches the TeXML call resource with the account sid: status and talk time; 404 is unknown; no account sid asks nothing", async () => {
    const seen: string[] = [];
    const answers = [
      {
        status: 200,
        body: JSON.parse(
          readFileSync(new URL("../fixtures/telnyx/texml-call-fetch-completed.json", import.meta.url), "utf8"),
        ),
      },
      { status: 404, body: { errors: [{ code: "10005", title: "Resource not found" }] } },
    ];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      seen.push(`${init?.method ?? "GET"} ${String(url)} ${new Headers(init?.headers).get("authorization")}`);
      const next = answers[seen.length - 1]!;
      return new Response(JSON.stringify(next.body), { status: next.status });
    };
    const provider = createTelnyxProvider({
      apiKey: "KEY0123",
      publicKey,
      accountSid: "f5586561-8ff0-4291-a51b-c7dfe4139ff9",
      fetch: fetch as typeof globalThis.fetch,
    });
    const sid = "v3:9X2vxPDFY2RHSJ1EdMS0RHRksMTg7ldNxdjWbVr9zBjbGjGsSe-aiQ";
    expect(await provider.fetchCallStatus!(sid)).toEqual({
      providerCallId: sid,
      status: "Completed",
      providerStatus: "completed",
      direction: "outbound",
      durationSeconds: 64,
    });
    expect(await provider.fetchCallStatus!("v3:gone")).toBeUndefined();
    expect(seen).toEqual([
      `GET https://api.telnyx.com/v2/texml/Accounts/f5586561-8ff0-4291-a51b-c7dfe4139ff9/Calls/${encodeURIComponent(sid)} Bearer KEY0123`,
      "GET https://api.telnyx.com/v2/texml/Accounts/f5586561-8ff0-4291-a51b-c7dfe4139ff9/Calls/v3%3Agone Bearer KEY0123",
    ]);
    const { provider: withoutAccount, seen: none } = fake();
    expect(await withoutAccount.fetchCallStatus!(sid)).toBeUndefined();
    expect(none).toEqual([]);
  });
});

describe("Telnyx numbers API", () => {
  function numbersFake(...responses: { status: number; body?: unknown }[]) {
    const seen: { method: string; url: string; body: unknown }[] = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      expect(new Headers(init?.headers).get("authorization")).toBe("Bearer KEY0123");
      seen.push({
        method: init?.method ?? "GET",
        url: String(url),
        body: init?.body ? JSON.parse(String(init.body)) : undefined,
      });
      const next = responses[seen.length - 1] ?? { status: 500 };
      return new Response(next.body === undefined ? null : JSON.stringify(next.body), { status: next.status });
    };
    const provider = createTelnyxProvider({
      apiKey: "KEY0123",
      publicKey,
      texmlConnectionId: "1894",
      messagingProfileId: "4001",
      fetch: fetch as typeof globalThis.fetch,
    });
    return { provider, seen };
  }

  it("searches available numbers with country, area code, state and feature filters", async () => {
    const { provider, seen } = numbersFake({
      status: 200,
      body: {
        data: [
          {
            phone_number: "+14155550123",
            region_information: [
              { region_type: "rate_center", region_name: "SAN FRANCISCO" },
              { region_type: "state", region_name: "CA" },
            ],
            features: [{ name: "sms" }, { name: "voice" }],
          },
        ],
      },
    });
    expect(
      await provider.searchAvailableNumbers!({
        country: "US",
        areaCode: "415",
        region: "CA",
        capabilities: ["sms", "voice"],
        limit: 5,
      }),
    ).toEqual([
      { phoneNumber: "+14155550123", region: "CA", locality: "SAN FRANCISCO", capabilities: ["sms", "voice"] },
    ]);
    const url = new URL(seen[0]!.url);
    expect(`${url.origin}${url.pathname}`).toBe("https://api.telnyx.com/v2/available_phone_numbers");
    expect([...url.searchParams]).toEqual([
      ["filter[country_code]", "US"],
      ["filter[national_destination_code]", "415"],
      ["filter[administrative_area]", "CA"],
      ["filter[features][]", "sms"],
      ["filter[features][]", "voice"],
      ["filter[limit]", "5"],
    ]);
  });

  it("orders a number into the TeXML application and messaging profile, finds, configures and releases held ones", async () => {
    const { provider, seen } = numbersFake(
      // The order's items are order records (number_order_phone_number), not the phone number resources DELETE takes.
      {
        status: 200,
        body: {
          data: {
            id: "ord1",
            status: "pending",
            phone_numbers: [
              {
                id: "item1",
                record_type: "number_order_phone_number",
                phone_number: "+14155550123",
                status: "pending",
              },
            ],
          },
        },
      },
      { status: 200, body: { data: [{ id: "pn2", phone_number: "+14155550124" }] } },
      { status: 200, body: { data: [] } },
      { status: 200, body: { data: { id: "pn2" } } },
      { status: 200, body: { data: { id: "pn2" } } },
      { status: 200, body: { data: { id: "pn2" } } },
      { status: 404, body: { errors: [{ code: "10005", title: "Resource not found" }] } },
      { status: 200, body: { data: [{ id: "pn1", phone_number: "+14155550123" }] } },
      { status: 200, body: { data: { id: "pn1" } } },
      { status: 200, body: { data: [] } },
    );
    const webhooks = { smsUrl: "s", voiceUrl: "v", voiceStatusCallbackUrl: "c" };
    expect(await provider.buyNumber!("+14155550123", webhooks)).toEqual({
      providerNumberId: "+14155550123",
      phoneNumber: "+14155550123",
    });
    expect(await provider.findOwnedNumber!("+14155550124")).toEqual({
      providerNumberId: "pn2",
      phoneNumber: "+14155550124",
    });
    expect(await provider.findOwnedNumber!("+14155550198")).toBeUndefined();
    await provider.configureNumber!("pn2", webhooks);
    await provider.releaseNumber!("pn2");
    await provider.releaseNumber!("pn2");
    // A bought number is released by its E.164: looked up, then deleted; gone already is released.
    await provider.releaseNumber!("+14155550123");
    await provider.releaseNumber!("+14155550123");
    expect(seen).toEqual([
      {
        method: "POST",
        url: "https://api.telnyx.com/v2/number_orders",
        body: {
          phone_numbers: [{ phone_number: "+14155550123" }],
          connection_id: "1894",
          messaging_profile_id: "4001",
        },
      },
      {
        method: "GET",
        url: "https://api.telnyx.com/v2/phone_numbers?filter%5Bphone_number%5D=%2B14155550124",
        body: undefined,
      },
      {
        method: "GET",
        url: "https://api.telnyx.com/v2/phone_numbers?filter%5Bphone_number%5D=%2B14155550198",
        body: undefined,
      },
      { method: "PATCH", url: "https://api.telnyx.com/v2/phone_numbers/pn2", body: { connection_id: "1894" } },
      {
        method: "PATCH",
        url: "https://api.telnyx.com/v2/phone_numbers/pn2/messaging",
        body: { messaging_profile_id: "4001" },
      },
      { method: "DELETE", url: "https://api.telnyx.com/v2/phone_numbers/pn2", body: undefined },
      { method: "DELETE", url: "https://api.telnyx.com/v2/phone_numbers/pn2", body: undefined },
      {
        method: "GET",
        url: "https://api.telnyx.com/v2/phone_numbers?filter%5Bphone_number%5D=%2B14155550123",
        body: undefined,
      },
      { method: "DELETE", url: "https://api.telnyx.com/v2/phone_numbers/pn1", body: undefined },
      {
        method: "GET",
        url: "https://api.telnyx.com/v2/phone_numbers?filter%5Bphone_number%5D=%2B14155550123",
        body: undefined,
      },
    ]);
  });
});

describe("Telnyx webhooks", () => {
  const { provider } = fake();

  it("verifies Ed25519 signatures over timestamp|body, refusing an altered body, a stale timestamp or another key", () => {
    const body = raw("webhook-message-finalized-delivered.json");
    const request = signed(body);
    expect(provider.verifyWebhookSignature(request)).toBe(true);
    expect(provider.verifyWebhookSignature({ ...request, body: body.replace("delivered", "sent") })).toBe(false);
    expect(provider.verifyWebhookSignature(signed(body, String(Math.floor(NOW / 1000) - 3600)))).toBe(false);
    expect(
      provider.verifyWebhookSignature({
        ...request,
        headers: { "Telnyx-Timestamp": request.headers["Telnyx-Timestamp"] },
      }),
    ).toBe(false);
    const other = generateKeyPairSync("ed25519");
    const forged = sign(null, Buffer.from(`${request.headers["Telnyx-Timestamp"]}|${body}`), other.privateKey).toString(
      "base64",
    );
    expect(
      provider.verifyWebhookSignature({
        ...request,
        headers: { ...request.headers, "Telnyx-Signature-Ed25519": forged },
      }),
    ).toBe(false);
  });

  it("parses message.finalized receipts: delivered, and failed with its error code", () => {
    expect(provider.parseStatusCallback(signed(raw("webhook-message-finalized-delivered.json")))).toEqual([
      {
        type: "message.status",
        providerMessageId: "40317c5b-0f8a-4a1b-b5d5-bf6c9a3c21aa",
        status: "Delivered",
        providerStatus: "delivered",
        from: "+12025550142",
        to: "+13125550187",
        dedupKey: "4ee8c3a6-4995-4309-a3c6-38e3db9ea4be",
      },
    ]);
    expect(provider.parseStatusCallback(signed(raw("webhook-message-finalized-failed-40008.json")))).toMatchObject([
      { status: "Undelivered", providerStatus: "delivery_failed", errorCode: "40008" },
    ]);
    expect(provider.parseStatusCallback(signed(raw("webhook-message-received.json")))).toEqual([]);
  });

  it("parses an inbound MMS (message.received)", () => {
    expect(provider.parseInboundMessage(signed(raw("webhook-message-received.json")))).toEqual({
      type: "message.inbound",
      providerMessageId: "84cca175-9755-4859-b67f-4730d7f58aa3",
      from: "+13125550187",
      to: "+12025550142",
      body: "Here is the photo",
      media: [{ url: "https://media.telnyx.com/photo.jpg", contentType: "image/jpeg" }],
      segments: 1,
      dedupKey: "84cca175-9755-4859-b67f-4730d7f58aa3:received",
    });
    expect(() => provider.parseInboundMessage(signed("not json"))).toThrow(ProviderError);
  });
});

describe("Telnyx on a deployment", () => {
  it("is a provider only with its API key and webhook public key (settings refuse it otherwise)", () => {
    const saved = { key: process.env.TELNYX_API_KEY, publicKey: process.env.TELNYX_PUBLIC_KEY };
    try {
      delete process.env.TELNYX_API_KEY;
      process.env.TELNYX_PUBLIC_KEY = publicKey;
      expect(providerByName("telnyx")).toBeUndefined();
      process.env.TELNYX_API_KEY = "KEY0123";
      expect(providerByName("telnyx")?.name).toBe("telnyx");
    } finally {
      for (const [name, value] of [
        ["TELNYX_API_KEY", saved.key],
        ["TELNYX_PUBLIC_KEY", saved.publicKey],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});

describe("Telnyx hand-off search (a send or placement cut short by a crash)", () => {
  const fixture = (name: string) =>
    JSON.parse(readFileSync(new URL(`../fixtures/telnyx/${name}`, import.meta.url), "utf8")) as unknown;
  const reference = {
    idempotencyKey: "01JXMSG0000000000000000001",
    from: "+12025550142",
    to: "+13125550187",
    since: "2026-11-21T14:02:10.000Z",
  };
  const message = (id: string, text: string) => ({
    status: 200,
    body: {
      data: {
        record_type: "message",
        id,
        direction: "outbound",
        parts: 1,
        text,
        from: { phone_number: reference.from },
        to: [{ phone_number: reference.to, status: "sent" }],
      },
    },
  });

  it("searches the message detail records by sender, recipient and time, then reads each candidate for its text", async () => {
    const { provider, seen } = fake(
      { status: 200, body: fixture("detail-records-messaging.json") },
      message("40385f64-5717-4562-b3fc-2c963f66afa6", "Another text"),
      message("4a7c1e93-0b2d-4f6a-8c1e-3b5d7f9a2c4e", "Hi Dana"),
    );
    expect(await provider.findSentMessage!({ ...reference, body: "Hi Dana" })).toEqual({
      providerMessageId: "4a7c1e93-0b2d-4f6a-8c1e-3b5d7f9a2c4e",
      status: "Sent",
      segments: 1,
    });
    expect(
      seen.map((request) => `${request.method} ${decodeURIComponent(request.url)} ${request.authorization}`),
    ).toEqual([
      // The claim less a minute of clock skew; oldest first.
      "GET https://api.telnyx.com/v2/detail_records?filter[record_type]=messaging&filter[direction]=outbound&filter[cli]=+12025550142&filter[cld]=+13125550187&filter[created_at][gte]=2026-11-21T14:01:10.000Z&sort=created_at&page[size]=50 Bearer KEY0123",
      "GET https://api.telnyx.com/v2/messages/40385f64-5717-4562-b3fc-2c963f66afa6 Bearer KEY0123",
      "GET https://api.telnyx.com/v2/messages/4a7c1e93-0b2d-4f6a-8c1e-3b5d7f9a2c4e Bearer KEY0123",
    ]);
    expect(provider.handOffSearchSettleMs).toBe(5 * 60_000);
  });

  it("answers not taken when no record's message has the body, and cannot say when a full page matched nothing", async () => {
    const { provider } = fake({ status: 200, body: { data: [], meta: { total_results: 0 } } });
    expect(await provider.findSentMessage!({ ...reference, body: "Hi Dana" })).toBeUndefined();
    const full = Array.from({ length: 50 }, (_, index) => ({ uuid: `id-${index}`, direction: "outbound" }));
    const { provider: crowded } = fake(
      { status: 200, body: { data: full } },
      ...full.map((record) => message(record.uuid, "Another text")),
    );
    expect(
      await crowded.findSentMessage!({ ...reference, body: "Hi Dana" }).catch((error: unknown) => error),
    ).toMatchObject({ kind: "transient", code: "lookup_inconclusive" });
  });

  it("finds a placed call in the TeXML call list of the account: the oldest outbound call since the claim", async () => {
    const seen: string[] = [];
    const fetch = async (url: string | URL | Request, init?: RequestInit) => {
      seen.push(`${init?.method ?? "GET"} ${String(url)} ${new Headers(init?.headers).get("authorization")}`);
      return new Response(JSON.stringify(fixture("texml-calls-list.json")), { status: 200 });
    };
    const provider = createTelnyxProvider({
      apiKey: "KEY0123",
      publicKey,
      accountSid: "f5586561-8ff0-4291-a51b-c7dfe4139ff9",
      fetch: fetch as typeof globalThis.fetch,
    });
    const call = { ...reference, to: "+14155550120", since: "2026-11-21T14:10:00.000Z" };
    expect(await provider.findPlacedCall!(call)).toEqual({
      providerCallId: "v3:u5OAKGEPT3Dx8SZSSDRWEMdNH2OripQhO",
      status: "Ringing",
    });
    expect(await provider.findPlacedCall!({ ...call, since: "2026-11-21T14:30:00.000Z" })).toBeUndefined();
    expect(seen[0]).toBe(
      "GET https://api.telnyx.com/v2/texml/Accounts/f5586561-8ff0-4291-a51b-c7dfe4139ff9/Calls?To=%2B14155550120&From=%2B12025550142&PageSize=50 Bearer KEY0123",
    );
    // Without the TeXML account sid there is nothing to search: the call waits for its deadline.
    expect(fake().provider.findPlacedCall).toBeUndefined();
  });
});
