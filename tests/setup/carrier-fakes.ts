import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { text } from "node:stream/consumers";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { environmentNames } from "#stacks/definitions";
import { fieldProblem, registrationFakes } from "#tests/setup/registration-fakes";

/**
 * Local fakes of the Telnyx and Twilio REST APIs the test stack's adapters
 * talk to (one HTTP server, `/telnyx` and `/twilio` prefixes). Each route
 * checks what the carrier's documentation says it takes — method, path,
 * `Authorization`, content type and the exact body fields — and answers a
 * mismatch with a 422 the adapter reports (so a wrong request fails the test
 * that made it). Every request is recorded for tests to assert on.
 *
 * Tests steer outcomes per destination number (random per test, so parallel
 * workers never collide) through `POST /__fake/script`: the next sends to
 * that number answer the scripted results in order (an error with its code,
 * or a dropped connection after the request arrived), then accept. Lookups
 * answer what `POST /__fake/calls/{sid}` or `/__fake/messages/{id}` set;
 * `POST /__fake/telnyx/held` puts a number in the Telnyx account (bring your own);
 * what each fake took is also listed back as the carrier lists it (Twilio's Messages and Calls lists, Telnyx's message
 * detail records and TeXML call list: the hand-off searches of a crash's recovery);
 * `POST /__fake/registrations/{reference}` decides a 10DLC registration (tests/setup/registration-fakes.ts).
 */

export const TELNYX_FAKE = {
  apiKey: "KEYfake0123",
  connectionId: "1894000000",
  messagingProfileId: "40017f4a-0000-4000-8000-000000000001",
  accountSid: "f5586561-8ff0-4291-a51b-c7dfe4139ff9",
};
export const TWILIO_FAKE = {
  accountSid: "AC00000000000000000000000000fake",
  authToken: "fake-auth-token",
  apiKeySid: "SK00000000000000000000000000fake",
  apiKeySecret: "fake-api-key-secret",
};

/**
 * One scripted answer to a send: a carrier error (status and code, with a Retry-After header when `retryAfterSeconds`),
 * or the connection dropped after the request was read.
 */
export type ScriptedOutcome =
  { error: { status: number; code: string; detail?: string; retryAfterSeconds?: number } } | { dropConnection: true };

export type RecordedRequest = {
  carrier: "telnyx" | "twilio";
  method: string;
  /** Path after the carrier prefix, query included. */
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  /** JSON (Telnyx) or the form's pairs (Twilio), as sent. */
  body: unknown;
  /** What the fake answered: the status, or "dropped". */
  answered: number | "dropped";
  /** The `sid` of what Twilio's fake answered (the resource a request created), when it has one. */
  answeredSid?: string;
  /** When the request arrived (epoch ms): pacing tests read the carrier's view of a number's throughput from it. */
  at: number;
};

type FakeCall = { sid: string; from: string; to: string; status: string; duration?: number; createdAt: number };
type FakeMessage = {
  from: string;
  to: string;
  text: string;
  status: string;
  errors?: { code: string; title: string }[];
  createdAt: number;
};

/** The request's query names, each once, and no other: a search is checked for exactly the filters it must send. */
function queryProblem(url: URL, names: readonly string[]): string | undefined {
  const sent = [...url.searchParams.keys()];
  const missing = names.filter((name) => !url.searchParams.get(name));
  const unexpected = sent.filter((name) => !names.includes(name));
  if (missing.length || unexpected.length || new Set(sent).size !== sent.length)
    return `query must be exactly ${names.join(", ")} (missing ${missing.join(", ") || "none"}, unexpected ${unexpected.join(", ") || "none"})`;
  return undefined;
}

/** The optional fields of a call request, the same at Twilio and in Telnyx's TeXML (TwiML-compatible). */
const CALL_OPTIONS = [
  "Url",
  "StatusCallback",
  "StatusCallbackMethod",
  "StatusCallbackEvent",
  "Record",
  "Timeout",
  "TimeLimit",
] as const;

/** Twilio's date format (RFC 2822, GMT). */
const rfc2822 = (at: number) => new Date(at).toUTCString().replace("GMT", "+0000");

/** A call the Telnyx fake placed, as its TeXML call resource (fetched or listed; flat, Twilio's words). */
function texmlCall(call: FakeCall) {
  return {
    account_sid: TELNYX_FAKE.accountSid,
    sid: call.sid,
    from: call.from,
    to: call.to,
    direction: "outbound",
    status: call.status,
    date_created: rfc2822(call.createdAt),
    ...(call.duration !== undefined ? { duration: String(call.duration) } : {}),
  };
}

/** A Message or Call the Twilio fake took, as Twilio's REST API shows it (fetched or listed). */
function twilioResource(sid: string, item: FakeMessage | FakeCall) {
  return {
    sid,
    account_sid: TWILIO_FAKE.accountSid,
    from: item.from,
    to: item.to,
    status: item.status,
    direction: "outbound-api",
    date_created: rfc2822(item.createdAt),
    ...("text" in item ? { body: item.text, num_segments: "1", error_code: null } : {}),
    ...("duration" in item && item.duration !== undefined ? { duration: String(item.duration) } : {}),
  };
}

export async function startCarrierFakes(): Promise<{
  url: string;
  env: Record<string, string>;
  telnyxPrivateKeyPem: string;
  stop: () => Promise<void>;
}> {
  const keys = generateKeyPairSync("ed25519");
  const telnyxPublicKey = keys.publicKey.export({ format: "der", type: "spki" }).subarray(12).toString("base64");
  const recorded: RecordedRequest[] = [];
  const scripts = new Map<string, ScriptedOutcome[]>();
  const calls = new Map<string, FakeCall>();
  const messages = new Map<string, FakeMessage>();
  const held = new Map<string, { id: string; phoneNumber: string }>();
  const registrations = registrationFakes({
    heldTelnyxNumber: (phoneNumber) => [...held.values()].some((number) => number.phoneNumber === phoneNumber),
  });
  /** Telnyx phone number ids, never reused (a released number's id is gone for good). */
  let lastNumberId = 1_000_000;

  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) =>
      answer(response, 500, { errors: [{ code: "fake_crashed", detail: String(error) }] }),
    );
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    // Its arrival, before the body is read: reading takes its own time when this process is busy.
    const at = Date.now();
    const raw = await text(request);
    const url = new URL(request.url ?? "/", "http://fake");
    if (url.pathname.startsWith("/__fake/")) return control(request.method ?? "GET", url, raw, response);
    const carrier = url.pathname.startsWith("/telnyx/")
      ? "telnyx"
      : url.pathname.startsWith("/twilio/")
        ? "twilio"
        : undefined;
    if (!carrier) return answer(response, 404, {});
    const path = url.pathname.slice(carrier.length + 1) + url.search;
    const contentType = request.headers["content-type"];
    const body = raw === "" ? undefined : carrier === "telnyx" ? JSON.parse(raw) : [...new URLSearchParams(raw)];
    const entry: RecordedRequest = {
      carrier,
      method: request.method ?? "GET",
      path,
      authorization: request.headers.authorization,
      contentType,
      body,
      answered: 0,
      at,
    };
    recorded.push(entry);
    const reply = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      entry.answered = status;
      const sid = (payload as { sid?: unknown } | undefined)?.sid;
      if (typeof sid === "string") entry.answeredSid = sid;
      answer(response, status, payload, headers);
    };
    const mismatch = (detail: string) =>
      reply(
        422,
        carrier === "telnyx"
          ? { errors: [{ code: "fake_request_mismatch", title: "Request mismatch", detail }] }
          : { code: 0, message: `fake_request_mismatch: ${detail}`, status: 422 },
      );
    const scripted = (to: string): boolean => {
      const next = scripts.get(`${carrier}:${to}`)?.shift();
      if (!next) return false;
      if ("dropConnection" in next) {
        entry.answered = "dropped";
        request.socket.destroy();
        return true;
      }
      const { status, code, detail = "Scripted by the test", retryAfterSeconds } = next.error;
      reply(
        status,
        carrier === "telnyx"
          ? { errors: [{ code, title: "Scripted", detail }] }
          : { code: Number(code), message: detail, status },
        retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) },
      );
      return true;
    };
    if (carrier === "telnyx")
      return telnyx(entry, url, body as Record<string, unknown> | undefined, { reply, mismatch, scripted });
    return twilio(entry, url, new URLSearchParams(raw), { reply, mismatch, scripted });
  }

  type Answer = {
    reply: (status: number, payload: unknown) => void;
    mismatch: (detail: string) => void;
    scripted: (to: string) => boolean;
  };

  /** Telnyx API v2: JSON in and out, `Authorization: Bearer <API key>`. */
  function telnyx(
    entry: RecordedRequest,
    url: URL,
    body: Record<string, unknown> | undefined,
    { reply, mismatch, scripted }: Answer,
  ): void {
    if (entry.authorization !== `Bearer ${TELNYX_FAKE.apiKey}`)
      return reply(401, { errors: [{ code: "10009", title: "Authentication failed" }] });
    if (body !== undefined && entry.contentType !== "application/json") return mismatch("JSON bodies only");
    const path = url.pathname.slice("/telnyx".length);
    const route = `${entry.method} ${path.replace(/\/[^/]+$/, "/{id}")}`;
    if (registrations.telnyx(entry.method, path, body, reply, mismatch, url.searchParams)) return;
    if (entry.method === "POST" && path === "/v2/messages") {
      const problem = fieldProblem(body, ["from", "to"], ["text", "media_urls", "type", "webhook_url"]);
      if (problem) return mismatch(problem);
      if (!body!["text"] && !body!["media_urls"]) return mismatch("text or media_urls is required");
      if (body!["media_urls"] && body!["type"] !== "MMS") return mismatch("media needs type MMS");
      if (scripted(String(body!["to"]))) return;
      const id = randomUUID();
      messages.set(id, {
        from: String(body!["from"]),
        to: String(body!["to"]),
        text: String(body!["text"] ?? ""),
        status: "queued",
        createdAt: Date.now(),
      });
      return reply(200, {
        data: {
          record_type: "message",
          id,
          direction: "outbound",
          type: body!["media_urls"] ? "MMS" : "SMS",
          parts: 1,
          from: { phone_number: body!["from"] },
          to: [{ phone_number: body!["to"], status: "queued" }],
        },
      });
    }
    if (entry.method === "GET" && route === "GET /v2/messages/{id}") {
      const message = messages.get(path.split("/").pop()!);
      if (!message) return reply(404, { errors: [{ code: "10005", title: "Resource not found" }] });
      return reply(200, {
        data: {
          id: path.split("/").pop(),
          record_type: "message",
          direction: "outbound",
          parts: 1,
          from: { phone_number: message.from },
          to: [{ phone_number: message.to, status: message.status }],
          text: message.text,
          errors: message.errors ?? [],
        },
      });
    }
    if (entry.method === "POST" && path === `/v2/texml/calls/${TELNYX_FAKE.connectionId}`) {
      const problem = fieldProblem(body, ["From", "To"], ["Texml", ...CALL_OPTIONS]);
      if (problem) return mismatch(problem);
      if (!body!["Texml"] === !body!["Url"]) return mismatch("exactly one of Texml and Url");
      if (scripted(String(body!["To"]))) return;
      const sid = `v3:${randomUUID()}`;
      calls.set(sid, {
        sid,
        from: String(body!["From"]),
        to: String(body!["To"]),
        status: "queued",
        createdAt: Date.now(),
      });
      return reply(200, { call_sid: sid, from: body!["From"], to: body!["To"], status: "queued" });
    }
    if (entry.method === "GET" && path === "/v2/detail_records") {
      const problem = queryProblem(url, [
        "filter[record_type]",
        "filter[direction]",
        "filter[cli]",
        "filter[cld]",
        "filter[created_at][gte]",
        "sort",
        "page[size]",
      ]);
      if (problem) return mismatch(problem);
      const query = url.searchParams;
      if (query.get("filter[record_type]") !== "messaging" || query.get("filter[direction]") !== "outbound")
        return mismatch("outbound messaging records only");
      if (query.get("sort") !== "created_at") return mismatch("sorted oldest first");
      const from = Date.parse(query.get("filter[created_at][gte]")!);
      if (Number.isNaN(from)) return mismatch("filter[created_at][gte] is a date-time");
      const size = Number(query.get("page[size]"));
      if (!Number.isInteger(size) || size < 1 || size > 50) return mismatch("page[size] is 1 to 50");
      const data = [...messages.entries()]
        .filter(([, message]) => message.from === query.get("filter[cli]") && message.to === query.get("filter[cld]"))
        .filter(([, message]) => message.createdAt >= from)
        .sort(([, a], [, b]) => a.createdAt - b.createdAt)
        .slice(0, size)
        .map(([uuid, message]) => ({
          record_type: "message_detail_record",
          uuid,
          cli: message.from,
          cld: message.to,
          direction: "outbound",
          message_type: "SMS",
          status: message.status,
          created_at: new Date(message.createdAt).toISOString(),
        }));
      return reply(200, {
        data,
        meta: { page_number: 1, page_size: size, total_pages: 1, total_results: data.length },
      });
    }
    if (entry.method === "GET" && path === `/v2/texml/Accounts/${TELNYX_FAKE.accountSid}/Calls`) {
      const problem = queryProblem(url, ["To", "From", "PageSize"]);
      if (problem) return mismatch(problem);
      const size = Number(url.searchParams.get("PageSize"));
      const listed = [...calls.values()]
        .filter((call) => call.to === url.searchParams.get("To") && call.from === url.searchParams.get("From"))
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, size)
        .map(texmlCall);
      return reply(200, { calls: listed, page: 0, page_size: size, start: 0, end: Math.max(listed.length - 1, 0) });
    }
    if (entry.method === "GET" && path.startsWith(`/v2/texml/Accounts/${TELNYX_FAKE.accountSid}/Calls/`)) {
      const call = calls.get(decodeURIComponent(path.split("/").pop()!));
      if (!call) return reply(404, { errors: [{ code: "10005", title: "Resource not found" }] });
      return reply(200, texmlCall(call));
    }
    if (entry.method === "GET" && path === "/v2/available_phone_numbers") {
      if (url.searchParams.get("filter[country_code]") !== "US") return mismatch("filter[country_code] is required");
      const areaCode = url.searchParams.get("filter[national_destination_code]") ?? "212";
      const limit = Number(url.searchParams.get("filter[limit]") ?? "10");
      const features = url.searchParams.getAll("filter[features][]");
      const data = Array.from({ length: limit }, () => ({
        record_type: "available_phone_number",
        phone_number: `+1${areaCode}${200 + Math.floor(Math.random() * 700)}${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`,
        region_information: [
          { region_type: "rate_center", region_name: "NEW YORK" },
          { region_type: "state", region_name: url.searchParams.get("filter[administrative_area]") ?? "NY" },
        ],
        features: [...new Set(["sms", "voice", ...features])].map((name) => ({ name })),
      }));
      return reply(200, { data });
    }
    if (entry.method === "POST" && path === "/v2/number_orders") {
      const problem = fieldProblem(body, ["phone_numbers", "connection_id", "messaging_profile_id"], []);
      if (problem) return mismatch(problem);
      if (
        body!["connection_id"] !== TELNYX_FAKE.connectionId ||
        body!["messaging_profile_id"] !== TELNYX_FAKE.messagingProfileId
      )
        return mismatch("the order must join the TeXML application and the messaging profile");
      const ordered = (body!["phone_numbers"] as { phone_number: string }[]).map((number) => ({
        id: String(++lastNumberId),
        phone_number: number.phone_number,
      }));
      for (const number of ordered) held.set(number.id, { id: number.id, phoneNumber: number.phone_number });
      // As Telnyx: the order's items are order records with their own ids, not the phone number resources.
      const items = ordered.map((number) => ({
        id: randomUUID(),
        record_type: "number_order_phone_number",
        phone_number: number.phone_number,
        status: "pending",
      }));
      return reply(200, {
        data: { id: randomUUID(), record_type: "number_order", status: "pending", phone_numbers: items },
      });
    }
    if (entry.method === "GET" && path === "/v2/phone_numbers") {
      const wanted = url.searchParams.get("filter[phone_number]");
      return reply(200, {
        data: [...held.values()]
          .filter((number) => number.phoneNumber === wanted)
          .map((number) => ({ id: number.id, phone_number: number.phoneNumber })),
      });
    }
    const numberId = path.match(/^\/v2\/phone_numbers\/([^/]+)(\/messaging)?$/);
    if (numberId) {
      const number = held.get(decodeURIComponent(numberId[1]!));
      if (!number) return reply(404, { errors: [{ code: "10005", title: "Resource not found" }] });
      if (entry.method === "DELETE" && !numberId[2]) {
        held.delete(number.id);
        return reply(200, { data: { id: number.id, phone_number: number.phoneNumber, status: "deleted" } });
      }
      if (entry.method === "PATCH" && !numberId[2] && body?.["connection_id"] === TELNYX_FAKE.connectionId)
        return reply(200, { data: { id: number.id } });
      if (entry.method === "PATCH" && numberId[2] && body?.["messaging_profile_id"] === TELNYX_FAKE.messagingProfileId)
        return reply(200, { data: { id: number.id } });
    }
    return mismatch(`no Telnyx route ${entry.method} ${path}`);
  }

  /** Twilio REST 2010-04-01: forms in, JSON out, Basic auth with the API key. */
  function twilio(
    entry: RecordedRequest,
    url: URL,
    form: URLSearchParams,
    { reply, mismatch, scripted }: Answer,
  ): void {
    const basic = `Basic ${Buffer.from(`${TWILIO_FAKE.apiKeySid}:${TWILIO_FAKE.apiKeySecret}`).toString("base64")}`;
    if (entry.authorization !== basic) return reply(401, { code: 20003, message: "Authenticate", status: 401 });
    const path = url.pathname.slice("/twilio".length);
    if (registrations.twilio(entry.method, path, entry.contentType, form, reply, mismatch, url.searchParams)) return;
    const account = `/2010-04-01/Accounts/${TWILIO_FAKE.accountSid}`;
    const notFound = () => reply(404, { code: 20404, message: "The requested resource was not found", status: 404 });
    if (entry.method === "POST" && path === `${account}/IncomingPhoneNumbers.json`) {
      // A purchase by number (a toll-free number's registration at Twilio needs the `PN…` sid this answers).
      const webhooks = ["SmsUrl", "SmsMethod", "VoiceUrl", "VoiceMethod", "StatusCallback", "StatusCallbackMethod"];
      const names = [...form.keys()];
      const missing = ["PhoneNumber", ...webhooks].filter((name) => !form.get(name));
      if (missing.length) return mismatch(`missing ${missing.join(", ")}`);
      if (names.some((name) => name !== "PhoneNumber" && !webhooks.includes(name)))
        return mismatch("unexpected fields");
      const numberSid = `PN${randomBytes(16).toString("hex")}`;
      return reply(201, { sid: numberSid, phone_number: form.get("PhoneNumber"), account_sid: TWILIO_FAKE.accountSid });
    }
    if (entry.method === "GET" && (path === `${account}/Messages.json` || path === `${account}/Calls.json`)) {
      const problem =
        queryProblem(url, ["To", "From", "PageSize"]) && queryProblem(url, ["To", "From", "PageSize", "Page"]);
      if (problem) return mismatch(problem);
      const size = Number(url.searchParams.get("PageSize"));
      const page = Number(url.searchParams.get("Page") ?? "0");
      if (!Number.isInteger(size) || size < 1 || size > 1000) return mismatch("PageSize is 1 to 1000");
      const isMessages = path.endsWith("/Messages.json");
      const between = (item: { from: string; to: string }) =>
        item.to === url.searchParams.get("To") && item.from === url.searchParams.get("From");
      // As Twilio: newest first, a page at a time, the next page's URI given while there are more.
      const all = isMessages
        ? [...messages.entries()].filter(([, message]) => between(message))
        : [...calls.entries()].filter(([, call]) => between(call));
      all.sort(([, a], [, b]) => b.createdAt - a.createdAt);
      const items = all.slice(page * size, (page + 1) * size).map(([sid, item]) => twilioResource(sid, item));
      const next =
        (page + 1) * size < all.length
          ? `${path}?${new URLSearchParams([
              ["To", url.searchParams.get("To")!],
              ["From", url.searchParams.get("From")!],
              ["PageSize", String(size)],
              ["Page", String(page + 1)],
            ]).toString()}`
          : null;
      return reply(200, {
        [isMessages ? "messages" : "calls"]: items,
        page,
        page_size: size,
        next_page_uri: next,
      });
    }
    const one = path.match(/^\/2010-04-01\/Accounts\/[^/]+\/(Messages|Calls)\/([^/]+)\.json$/);
    if (entry.method === "GET" && one && path.startsWith(account)) {
      const sid = decodeURIComponent(one[2]!);
      const item = one[1] === "Messages" ? messages.get(sid) : calls.get(sid);
      if (!item) return notFound();
      return reply(200, twilioResource(sid, item));
    }
    if (entry.method === "POST" && path === `${account}/Calls.json`) {
      if (entry.contentType !== "application/x-www-form-urlencoded") return mismatch("form bodies only");
      const allowed = ["To", "From", "Twiml", ...CALL_OPTIONS];
      for (const name of new Set(form.keys())) if (!allowed.includes(name)) return mismatch(`unexpected field ${name}`);
      if (!form.get("To") || !form.get("From")) return mismatch("To and From are required");
      if (!form.get("Url") === !form.get("Twiml")) return mismatch("exactly one of Url and Twiml");
      if (scripted(form.get("To")!)) return;
      const sid = `CA${randomUUID().replaceAll("-", "")}`;
      const call = { sid, from: form.get("From")!, to: form.get("To")!, status: "queued", createdAt: Date.now() };
      calls.set(sid, call);
      return reply(201, twilioResource(sid, call));
    }
    if (entry.method === "POST" && path === `${account}/Messages.json`) {
      if (entry.contentType !== "application/x-www-form-urlencoded") return mismatch("form bodies only");
      const names = new Set(form.keys());
      for (const name of names)
        if (!["To", "From", "Body", "MediaUrl", "StatusCallback"].includes(name))
          return mismatch(`unexpected field ${name}`);
      if (!form.get("To") || !form.get("From")) return mismatch("To and From are required");
      if (scripted(form.get("To")!)) return;
      const sid = `SM${randomUUID().replaceAll("-", "")}`;
      const message = {
        from: form.get("From")!,
        to: form.get("To")!,
        text: form.get("Body") ?? "",
        status: "queued",
        createdAt: Date.now(),
      };
      messages.set(sid, message);
      return reply(201, twilioResource(sid, message));
    }
    return mismatch(`no Twilio route ${entry.method} ${path}`);
  }

  function control(method: string, url: URL, raw: string, response: ServerResponse): void {
    if (method === "POST" && url.pathname === "/__fake/script") {
      const { carrier, to, outcomes } = JSON.parse(raw) as { carrier: string; to: string; outcomes: ScriptedOutcome[] };
      scripts.set(`${carrier}:${to}`, [...outcomes]);
      return answer(response, 204, undefined);
    }
    if (method === "POST" && url.pathname === "/__fake/telnyx/held") {
      const { phoneNumber } = JSON.parse(raw) as { phoneNumber: string };
      const id = String(++lastNumberId);
      held.set(id, { id, phoneNumber });
      return answer(response, 200, { id });
    }
    const decided = url.pathname.match(/^\/__fake\/registrations\/(.+)$/);
    if (method === "POST" && decided)
      return answer(
        response,
        registrations.decide(decodeURIComponent(decided[1]!), JSON.parse(raw) as Record<string, unknown>) ? 204 : 404,
        undefined,
      );
    const [, kind, id] = url.pathname.match(/^\/__fake\/(calls|messages)\/(.+)$/) ?? [];
    if (method === "POST" && id) {
      const resource = (kind === "calls" ? calls : messages).get(decodeURIComponent(id));
      if (!resource) return answer(response, 404, {});
      Object.assign(resource, JSON.parse(raw) as object);
      return answer(response, 204, undefined);
    }
    if (method === "GET" && url.pathname === "/__fake/requests") {
      const containing = url.searchParams.get("containing") ?? "";
      return answer(
        response,
        200,
        recorded.filter((entry) => JSON.stringify(entry).includes(containing)),
      );
    }
    answer(response, 404, {});
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    env: {
      [environmentNames.telnyxApiKey]: TELNYX_FAKE.apiKey,
      [environmentNames.telnyxPublicKey]: telnyxPublicKey,
      [environmentNames.telnyxTexmlConnectionId]: TELNYX_FAKE.connectionId,
      [environmentNames.telnyxMessagingProfileId]: TELNYX_FAKE.messagingProfileId,
      [environmentNames.telnyxAccountSid]: TELNYX_FAKE.accountSid,
      [environmentNames.telnyxApiBaseUrl]: `${url}/telnyx`,
      [environmentNames.twilioAccountSid]: TWILIO_FAKE.accountSid,
      [environmentNames.twilioAuthToken]: TWILIO_FAKE.authToken,
      [environmentNames.twilioApiKeySid]: TWILIO_FAKE.apiKeySid,
      [environmentNames.twilioApiKeySecret]: TWILIO_FAKE.apiKeySecret,
      [environmentNames.twilioApiBaseUrl]: `${url}/twilio`,
    },
    telnyxPrivateKeyPem: keys.privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function answer(
  response: ServerResponse,
  status: number,
  payload: unknown,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, payload === undefined ? headers : { ...headers, "content-type": "application/json" });
  response.end(payload === undefined ? undefined : JSON.stringify(payload));
}
