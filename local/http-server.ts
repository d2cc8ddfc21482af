import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fallbackRoute, httpLimits, routes as definedRoutes, type RouteEntry } from "#stacks/definitions";
import {
  fromApiGatewayResult,
  gatewayError,
  maxPayloadBytes,
  maxQueryBytes,
  routeMatcher,
  newRequestId,
  toApiGatewayEvent,
  type OutgoingResponse,
} from "#local/apigateway";
import { serveApp, type AppOptions } from "#local/web-app";
import { redactUrl } from "#core/observability/index";
import { functionName, InvocationTimeout, lambdaContext, loadFunction, withTimeout } from "#local/handlers";

export interface HttpServerOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  routes?: readonly RouteEntry[];
  fallback?: { routeKey: string; handler: string };
  /** Served at `GET /.well-known/jwks.json` (local only: the key set user tokens are signed with). */
  jwks?: unknown;
  /**
   * Tests only: take the client address from `X-Forwarded-For`, so tests can act
   * as distinct clients of the per-IP rate limit. API Gateway never does this.
   */
  trustForwardedFor?: boolean;
  log?: (line: string) => void;
  /** The dashboard at /app (local/web-app.ts). */
  app?: AppOptions;
  /** Tests only: shorter timeouts than the deployed ones (stacks/definitions.ts `httpLimits`). */
  limits?: { functionTimeoutSeconds?: number; integrationTimeoutSeconds?: number };
}

export interface LocalHttpServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Serves the API on node:http the way API Gateway HTTP API fronts the Lambdas:
 * each request becomes a payload v2.0 event for the handler module of its route
 * (or `$default`), and the handler's result becomes the response.
 */
export async function startHttpServer(options: HttpServerOptions = {}): Promise<LocalHttpServer> {
  const match = routeMatcher(options.routes ?? definedRoutes);
  const fallback = options.fallback ?? fallbackRoute;
  const log = options.log ?? (() => undefined);
  const functionTimeoutMs = (options.limits?.functionTimeoutSeconds ?? httpLimits.functionTimeoutSeconds) * 1000;
  const integrationTimeoutMs =
    (options.limits?.integrationTimeoutSeconds ?? httpLimits.integrationTimeoutSeconds) * 1000;

  // Room for a 60 KB query in the request line; header values are held to 16 KB below, as before.
  const server = createServer({ maxHeaderSize: maxQueryBytes + 2 * maxHeaderBytes }, (request, response) => {
    const started = Date.now();
    const requestId = newRequestId();
    void serve(request, requestId)
      .catch((error: unknown) => {
        log(`local gateway error: ${error instanceof Error ? error.stack : String(error)}`);
        return gatewayError(500, "The gateway could not complete the request.", request.url?.split("?", 1)[0]);
      })
      .then((result) => {
        send(response, { ...result, headers: { ...result.headers, "apigw-requestid": requestId } });
        log(`${request.method} ${redactUrl(request.url ?? "/")} → ${result.statusCode} (${Date.now() - started} ms)`);
      });
  });

  async function serve(request: IncomingMessage, requestId: string): Promise<OutgoingResponse> {
    const method = request.method ?? "GET";
    const url = request.url ?? "/";
    const path = url.split("?", 1)[0] ?? url;
    if (headerBytes(request.rawHeaders) > maxHeaderBytes)
      return gatewayError(431, `The request headers exceed ${maxHeaderBytes} bytes.`, path);
    const body = await readBody(request);
    if (!body) return gatewayError(413, `The request body exceeds ${maxPayloadBytes} bytes.`, path);
    if (Buffer.byteLength(url) - Buffer.byteLength(path) > maxQueryBytes) {
      return gatewayError(414, `The query string exceeds ${maxQueryBytes} bytes.`, path);
    }
    if (options.jwks !== undefined && method === "GET" && path === "/.well-known/jwks.json") {
      return {
        statusCode: 200,
        headers: { "content-type": "application/json" },
        body: Buffer.from(JSON.stringify(options.jwks)),
      };
    }
    const app = options.app ? await serveApp(method, path, options.app) : undefined;
    if (app) return app;
    const matched = match(method, path);
    const routeKey = matched ? `${matched.route.method} ${matched.route.path}` : fallback.routeKey;
    const definition = matched ? matched.route : fallback;
    const spec = definition.handler;
    const event = toApiGatewayEvent(
      {
        method,
        url,
        rawHeaders: request.rawHeaders,
        body,
        sourceIp: sourceIp(request),
        protocol: `HTTP/${request.httpVersion}`,
      },
      routeKey,
      matched?.pathParameters,
      requestId,
    );
    // Lambda refuses an invocation whose payload (the whole event) exceeds its limit; API Gateway answers 413.
    if (Buffer.byteLength(JSON.stringify(event)) > httpLimits.maxInvocationPayloadBytes) {
      return gatewayError(
        413,
        `The request exceeds the function's ${httpLimits.maxInvocationPayloadBytes} byte invocation payload.`,
        path,
      );
    }
    let handler;
    try {
      handler = await loadFunction(definition);
    } catch (error) {
      log(`cannot load ${spec} for ${routeKey}: ${error instanceof Error ? error.message : String(error)}`);
      return gatewayError(500, "The gateway could not reach the function.", path);
    }
    // As deployed: the function has its timeout (handlers answer 503 just before it), the gateway its integration
    // timeout; whichever comes first ends the request: a killed function is a 500, an integration timeout a 503.
    const context = lambdaContext(functionName(spec), functionTimeoutMs);
    const gatewayGivesUpFirst = integrationTimeoutMs < functionTimeoutMs;
    try {
      const result = await withTimeout(
        Promise.resolve(handler(event, context)),
        Math.min(functionTimeoutMs, integrationTimeoutMs),
        spec,
      );
      return fromApiGatewayResult(result);
    } catch (error) {
      log(`${spec} failed (${context.awsRequestId}): ${error instanceof Error ? error.stack : String(error)}`);
      if (error instanceof InvocationTimeout && gatewayGivesUpFirst)
        return gatewayError(503, "The function did not answer within the gateway's integration timeout.", path);
      return gatewayError(
        500,
        error instanceof InvocationTimeout ? "The function timed out." : "The function failed.",
        path,
      );
    }
  }

  function sourceIp(request: IncomingMessage): string {
    const forwarded = options.trustForwardedFor ? request.headers["x-forwarded-for"] : undefined;
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    return first || (request.socket.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  }

  // Node answers malformed requests and oversized headers itself (a bare status line); answer as the gateway does.
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
    const answer = tooLarge
      ? gatewayError(431, "The request headers are too large.")
      : gatewayError(400, "The request is not valid HTTP.");
    const head = [
      `HTTP/1.1 ${answer.statusCode} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}`,
      "connection: close",
    ];
    for (const [name, value] of Object.entries(answer.headers)) head.push(`${name}: ${String(value)}`);
    head.push(`content-length: ${answer.body.length}`);
    socket.end(Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`), answer.body]));
  });

  // Idle keep-alive sockets stay open a minute, as API Gateway's do: with Node's 5 s default, a client whose event loop
  // lags (a test worker on a busy machine) can send on a socket the server is closing at that moment (ECONNRESET).
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 3000, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    port: address.port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Longest header section (names and values) the gateway accepts: Node's default limit, which applied before. */
const maxHeaderBytes = 16 * 1024;

function headerBytes(rawHeaders: string[]): number {
  return rawHeaders.reduce((total, part) => total + Buffer.byteLength(part) + 2, 0);
}

/** Reads the whole body; undefined when it exceeds API Gateway's payload limit (the rest is drained). */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = Number(request.headers["content-length"] ?? 0) > maxPayloadBytes ? Infinity : 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxPayloadBytes) chunks.push(chunk);
    });
    request.on("end", () => resolve(size > maxPayloadBytes ? undefined : Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function send(response: ServerResponse, result: OutgoingResponse): void {
  if (response.headersSent) return;
  for (const [name, value] of Object.entries(result.headers)) response.setHeader(name, value);
  if (result.statusCode === 413 || result.statusCode === 414 || result.statusCode === 431)
    response.setHeader("connection", "close");
  response.statusCode = result.statusCode;
  response.end(result.body);
}
