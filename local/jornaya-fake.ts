import type { IncomingMessage, ServerResponse } from "node:http";
import { answer, startFakeServer, type FakeServer } from "#local/fake-server";

/**
 * A local stand-in for Jornaya's LeadiD Authentication API (api.leadid.com) for `npm start` and the tests.
 * `GET /Authenticate?lac=<account code>&id=<LeadiD token>` is checked as Jornaya documents it — GET only, no body,
 * exactly the `lac` and `id` parameters (plus an optional `format=json`), a known account code (else 401) — and answers
 * `{ "authenticate": { "authentic": 1|0, "token": … } }`.
 *
 * Tokens exist once registered through `POST /__fake/tokens` with the account that created them and how they answer:
 * `valid` (authentic 1), `not-authentic` (authentic 0: expired, over-queried or opted out, which Jornaya does not tell
 * apart), or `outage` for the next `outages` requests (503, then as their state says). An unregistered token of a
 * known account answers authentic 0, as Jornaya does for tokens it did not issue.
 * `GET /__fake/requests?token=` lists what was received.
 */

export interface FakeLeadiDToken {
  token: string;
  /** The Jornaya account code that may query it (any registered token makes its account known). */
  accountCode: string;
  state?: "valid" | "not-authentic";
  /** Requests answered 503 before the token answers as its state says. */
  outages?: number;
}

export interface ReceivedLeadiDRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  body: string;
  answered: number;
}

export type JornayaFake = FakeServer;

const parameters = new Set(["lac", "id", "format"]);

export async function startJornayaFake(options: { port?: number } = {}): Promise<JornayaFake> {
  const tokens = new Map<string, FakeLeadiDToken>();
  const received: ReceivedLeadiDRequest[] = [];

  function handle(request: IncomingMessage, url: URL, raw: string, response: ServerResponse): void {
    const method = request.method ?? "GET";
    const entry: ReceivedLeadiDRequest = {
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: raw,
      answered: 0,
    };
    received.push(entry);
    const reply = (status: number, payload: unknown) => {
      entry.answered = status;
      answer(response, status, payload);
    };
    if (url.pathname !== "/Authenticate") return reply(404, { error: "Not found." });
    if (method !== "GET") return reply(405, { error: "Authenticate is a GET." });
    if (raw !== "") return reply(400, { error: "Authenticate takes no body." });
    const unknown = [...url.searchParams.keys()].find((name) => !parameters.has(name));
    if (unknown) return reply(400, { error: `Unknown parameter ${unknown}.` });
    const lac = url.searchParams.get("lac");
    const id = url.searchParams.get("id");
    if (!lac || !id) return reply(400, { error: "lac and id are required." });
    if (![...tokens.values()].some((token) => token.accountCode === lac))
      return reply(401, { error: "Invalid account code." });
    const token = tokens.get(id);
    if (token?.outages && token.outages > 0) {
      token.outages--;
      return reply(503, "Service Unavailable");
    }
    reply(200, { authenticate: { authentic: token?.state === "valid" ? 1 : 0, token: id } });
  }

  return startFakeServer({
    port: options.port,
    registerPath: "tokens",
    register(raw) {
      const token = JSON.parse(raw) as FakeLeadiDToken;
      tokens.set(token.token, { state: "valid", ...token });
    },
    requests: (query) => received.filter((entry) => !query.get("token") || entry.query.id === query.get("token")),
    handle,
  });
}
