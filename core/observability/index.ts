import { AsyncLocalStorage } from "node:async_hooks";
import { Logger } from "@aws-lambda-powertools/logger";

/** The service name every log line and metric carries. */
export const serviceName = "lead-messaging-api";

/**
 * Structured JSON logs (Powertools Logger): one line per request, per queue
 * record and per schedule run, each with the correlation id of the journey it
 * belongs to. `POWERTOOLS_LOG_LEVEL` sets the level (tests: WARN).
 */
export const logger = new Logger({ serviceName });

/**
 * The correlation id of the work running now: an HTTP request's id, or the id
 * carried by the queue message being handled. Every envelope published and
 * every event recorded meanwhile carries it, so one id finds a lead's whole
 * journey (intake → processing → automation run → message → receipt, calls).
 */
const correlation = new AsyncLocalStorage<string>();

export function withCorrelationId<T>(correlationId: string, work: () => T): T {
  return correlation.run(correlationId, work);
}

export function currentCorrelationId(): string | undefined {
  return correlation.getStore();
}

/**
 * A provider callback URL that carries the current correlation id, so the
 * receipt (a request of its own) joins the journey of what it reports on. The
 * provider signs the whole URL, so nobody else can change it.
 */
export function withCorrelationParameter(url: string): string {
  const correlationId = currentCorrelationId();
  return correlationId
    ? `${url}${url.includes("?") ? "&" : "?"}correlationId=${encodeURIComponent(correlationId)}`
    : url;
}

/** Query parameter names whose values are secrets, compared after percent-decoding and lower-casing. */
// `code`: the OAuth authorization code the identity provider sends back to the dashboard's URL (issue 25).
const secretParameterNames = new Set([
  "apikey",
  "api_key",
  "key",
  "token",
  "access_token",
  "refresh_token",
  "code",
  "code_verifier",
  "signature",
  "password",
  "secret",
]);

/**
 * A URL (or path with query) safe to log: the value of every parameter whose
 * decoded name is a secret's (`apiKey`, `api%4Bey`, `API%5Fkey`…) is replaced.
 */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf("?");
  if (queryStart < 0) return url;
  const query = url
    .slice(queryStart + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      return secretParameterNames.has(safeDecode(rawName).toLowerCase()) && equals >= 0 ? `${rawName}=…` : pair;
    })
    .join("&");
  return `${url.slice(0, queryStart)}?${query}`;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value.replaceAll("+", " "));
  } catch {
    return value;
  }
}
