import { text } from "node:stream/consumers";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A running local fake of an outside API. */
export interface FakeServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * The frame the certificate-API fakes share: `POST /__fake/<registerPath>` registers what the fake should answer,
 * `GET /__fake/requests?…` lists what it received (the filter is the fake's), anything else is the API itself.
 */
export async function startFakeServer(options: {
  port?: number | undefined;
  registerPath: string;
  register(raw: string): void;
  requests(query: URLSearchParams): unknown[];
  handle(request: IncomingMessage, url: URL, raw: string, response: ServerResponse): void;
}): Promise<FakeServer> {
  const server = createServer((request, response) => {
    void (async () => {
      const raw = await text(request);
      const url = new URL(request.url ?? "/", "http://fake");
      const method = request.method ?? "GET";
      if (method === "POST" && url.pathname === `/__fake/${options.registerPath}`) {
        options.register(raw);
        return answer(response, 204, undefined);
      }
      if (method === "GET" && url.pathname === "/__fake/requests")
        return answer(response, 200, options.requests(url.searchParams));
      if (url.pathname.startsWith("/__fake/")) return answer(response, 404, {});
      options.handle(request, url, raw, response);
    })().catch((error: unknown) => answer(response, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Answers JSON (or plain text for a string; nothing for undefined). */
export function answer(response: ServerResponse, status: number, payload: unknown): void {
  if (payload === undefined) {
    response.writeHead(status).end();
    return;
  }
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  response
    .writeHead(status, { "content-type": typeof payload === "string" ? "text/plain" : "application/json" })
    .end(body);
}
