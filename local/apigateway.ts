import { isUtf8 } from "node:buffer";
import { randomBytes } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from "aws-lambda";
import { securityHeaders } from "#core/http/headers";
import type { RouteEntry } from "#stacks/definitions";
import { gatewayProblem } from "#core/http/problem";

/** API Gateway HTTP API's request payload limit. */
export const maxPayloadBytes = 10 * 1024 * 1024;

export interface RouteMatch {
  route: RouteEntry;
  pathParameters: Record<string, string>;
}

type Segment = { kind: "static"; value: string } | { kind: "param"; name: string } | { kind: "greedy"; name: string };

interface CompiledRoute {
  route: RouteEntry;
  segments: Segment[];
}

const rank = { static: 0, param: 1, greedy: 2 } as const;

/**
 * Matches requests to route templates the way API Gateway does: `{name}` takes one
 * segment, `{name+}` the rest, and where several routes match the most specific
 * wins (a static segment beats a parameter, which beats a greedy parameter).
 */
export function routeMatcher(
  routes: readonly RouteEntry[],
): (method: string, rawPath: string) => RouteMatch | undefined {
  const compiled: CompiledRoute[] = routes.map((route) => ({ route, segments: splitPath(route.path).map(toSegment) }));
  return (method, rawPath) => {
    const parts = splitPath(rawPath).map(safeDecode);
    let best: { match: RouteMatch; ranks: number[] } | undefined;
    for (const candidate of compiled) {
      if (candidate.route.method !== method) continue;
      const match = matchSegments(candidate.segments, parts);
      if (!match) continue;
      const ranks = candidate.segments.map((segment) => rank[segment.kind]);
      if (!best || moreSpecific(ranks, best.ranks))
        best = { match: { route: candidate.route, pathParameters: match }, ranks };
    }
    return best?.match;
  };
}

function splitPath(path: string): string[] {
  return path.split("/").slice(1);
}

function toSegment(part: string): Segment {
  const param = /^\{([^}+]+)(\+?)\}$/.exec(part);
  if (!param) return { kind: "static", value: part };
  return param[2] ? { kind: "greedy", name: param[1]! } : { kind: "param", name: param[1]! };
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  const parameters: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const part = parts[index];
    if (part === undefined) return undefined;
    if (segment.kind === "greedy") {
      parameters[segment.name] = parts.slice(index).join("/");
      return parameters;
    }
    if (segment.kind === "static" ? part !== segment.value : part === "") return undefined;
    if (segment.kind === "param") parameters[segment.name] = part;
  }
  return parts.length === segments.length ? parameters : undefined;
}

function moreSpecific(ranks: number[], than: number[]): boolean {
  for (let index = 0; index < Math.min(ranks.length, than.length); index++) {
    if (ranks[index] !== than[index]) return ranks[index]! < than[index]!;
  }
  return ranks.length > than.length;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

export interface IncomingRequest {
  method: string;
  /** Path and query as received (`req.url`). */
  url: string;
  /** Node's `rawHeaders`: alternating names and values, as sent. */
  rawHeaders: string[];
  body: Buffer;
  sourceIp: string;
  protocol: string;
}

/** An API Gateway request id (`JKJaXmPLvHcESHA=`), also sent back as `apigw-requestid`. */
export function newRequestId(): string {
  return randomBytes(10).toString("base64").replace(/=+$/, "=");
}

/** Builds an API Gateway HTTP API payload v2.0 event for one request. */
export function toApiGatewayEvent(
  request: IncomingRequest,
  routeKey: string,
  pathParameters: Record<string, string> | undefined,
  requestId = newRequestId(),
): APIGatewayProxyEventV2 {
  const queryIndex = request.url.indexOf("?");
  // HTTP API hands the path percent-decoded (in rawPath too, despite its name).
  const rawPath = safeDecode(queryIndex < 0 ? request.url : request.url.slice(0, queryIndex));
  const rawQueryString = queryIndex < 0 ? "" : request.url.slice(queryIndex + 1);
  const { headers, cookies } = collectHeaders(request.rawHeaders);
  const host = headers.host ?? "127.0.0.1";
  headers["x-forwarded-for"] = request.sourceIp;
  headers["x-forwarded-proto"] ??= "http";
  headers["x-forwarded-port"] ??= host.includes(":") ? host.slice(host.lastIndexOf(":") + 1) : "80";
  headers["x-amzn-trace-id"] ??=
    `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomBytes(12).toString("hex")}`;
  const now = new Date();
  const event: APIGatewayProxyEventV2 = {
    version: "2.0",
    routeKey,
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      domainName: host,
      domainPrefix: host.split(".")[0]!.split(":")[0]!,
      http: {
        method: request.method,
        path: rawPath,
        protocol: request.protocol,
        sourceIp: request.sourceIp,
        userAgent: headers["user-agent"] ?? "",
      },
      requestId,
      routeKey,
      stage: "$default",
      time: apiGatewayTime(now),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (cookies.length > 0) event.cookies = cookies;
  const query = parseQuery(rawQueryString);
  if (query) event.queryStringParameters = query;
  if (pathParameters && Object.keys(pathParameters).length > 0) event.pathParameters = pathParameters;
  if (request.body.length > 0) {
    // Bytes that are not UTF-8 are passed base64-encoded as they came, never decoded into U+FFFD (core refuses them).
    const text = isTextContent(headers["content-type"]) && isUtf8(request.body);
    event.body = request.body.toString(text ? "utf8" : "base64");
    event.isBase64Encoded = !text;
  }
  return event;
}

/** Lower-cased names, repeated headers joined by commas; Cookie headers become `cookies`. */
function collectHeaders(rawHeaders: string[]): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]!.toLowerCase();
    const value = rawHeaders[index + 1]!;
    if (name === "cookie") {
      cookies.push(
        ...value
          .split(";")
          .map((cookie) => cookie.trim())
          .filter(Boolean),
      );
      continue;
    }
    headers[name] = name in headers ? `${headers[name]},${value}` : value;
  }
  return { headers, cookies };
}

function parseQuery(rawQueryString: string): Record<string, string> | undefined {
  if (rawQueryString === "") return undefined;
  const query: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(rawQueryString)) {
    query[name] = name in query ? `${query[name]},${value}` : value;
  }
  return Object.keys(query).length > 0 ? query : undefined;
}

/** API Gateway passes these as text; any other (or no) content type arrives base64-encoded. */
function isTextContent(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return (
    type.startsWith("text/") ||
    /^application\/(?:json|[\w.+-]+\+json|xml|[\w.+-]+\+xml|javascript|ecmascript|graphql|x-ndjson|yaml|x-yaml)$/.test(
      type,
    )
  );
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `12/Mar/2020:19:03:58 +0000`, API Gateway's requestContext.time format. */
function apiGatewayTime(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return (
    `${pad(date.getUTCDate())}/${months[date.getUTCMonth()]}/${date.getUTCFullYear()}:` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

export interface OutgoingResponse {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Longest query string the gateway passes on (API Gateway's request line limit is of this order). */
export const maxQueryBytes = 60 * 1024;

/**
 * The gateway's own answer (no handler ran, or it failed): an RFC 9457 problem
 * like every other error, with the headers every answer carries.
 */
export function gatewayError(statusCode: number, detail: string, instance = "/"): OutgoingResponse {
  return {
    statusCode,
    headers: { "content-type": "application/problem+json", ...securityHeaders },
    body: Buffer.from(JSON.stringify(gatewayProblem(statusCode, detail, instance))),
  };
}

/**
 * Turns a handler's result into the HTTP response API Gateway would send for
 * payload format 2.0: a `statusCode` object is taken as is; anything else is a
 * 200 whose JSON body is the value (a string is sent as it is).
 */
export function fromApiGatewayResult(result: APIGatewayProxyResultV2 | unknown): OutgoingResponse {
  if (typeof result === "object" && result !== null && "statusCode" in result) {
    const structured = result as Exclude<APIGatewayProxyResultV2, string> & {
      multiValueHeaders?: Record<string, (string | number | boolean)[]>;
    };
    const statusCode = Number(structured.statusCode);
    if (!Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
      return gatewayError(500, "Internal Server Error");
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, values] of Object.entries(structured.multiValueHeaders ?? {})) {
      headers[name.toLowerCase()] = values.map(String).join(",");
    }
    for (const [name, value] of Object.entries(structured.headers ?? {})) headers[name.toLowerCase()] = String(value);
    if (structured.cookies && structured.cookies.length > 0) headers["set-cookie"] = structured.cookies;
    const body = structured.body ?? "";
    return {
      statusCode,
      headers,
      body: Buffer.from(body, structured.isBase64Encoded ? "base64" : "utf8"),
    };
  }
  const body = typeof result === "string" ? result : result === undefined ? "" : JSON.stringify(result);
  return { statusCode: 200, headers: { "content-type": "application/json" }, body: Buffer.from(body) };
}
