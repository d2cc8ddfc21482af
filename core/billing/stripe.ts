import { createHmac, timingSafeEqual } from "node:crypto";
import type Stripe from "stripe";
import { config } from "#core/config";
import { PaymentProviderUnavailableError } from "#core/errors";

/**
 * The two Stripe API calls we make and Stripe's webhook signature check, over fetch and node:crypto rather than the
 * official library (docs/decisions.md, issue 27): the library is 258 KB of every resource's code in the top-up and
 * payment-webhook bundles, for one create, one retrieve and one HMAC. Requests are the library's own: its pinned API
 * version (`Stripe-Version`, so answers have the shapes of its types), form encoding, an Idempotency-Key on every
 * POST, and its retry policy with `maxNetworkRetries: 1` (one retry after 0.5 s of a network failure, a 409, a 5xx,
 * or what `Stripe-Should-Retry` says). Locally (and in tests) `STRIPE_API_URL` points at the payment simulator
 * (local/payment-simulator.ts), which checks each request as Stripe would and signs events with the library.
 */

/** The API version the installed `stripe` package pins (`Stripe.API_VERSION`; tests/unit/stripe-client.test.ts keeps them equal). */
export const stripeApiVersion = "2026-10-28.endive";
const defaultApiUrl = "https://api.stripe.com";
const timeoutMs = 6_000;
const retryDelayMs = 500;
/** The library's default tolerance between the signature's timestamp and now, against replays. */
const signatureToleranceSeconds = 300;

/** An answer of the Stripe API other than 2xx. */
export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const message = (body as { error?: { message?: unknown } } | undefined)?.error?.message;
    super(`Stripe answered ${status}${typeof message === "string" ? `: ${message}` : ""}`);
    this.name = "StripeApiError";
  }
}

/** What we call of the Stripe API, shaped as the library's client so callers read the same. */
export interface StripeClient {
  checkout: {
    sessions: {
      create(
        params: Stripe.Checkout.SessionCreateParams,
        options: { idempotencyKey: string },
      ): Promise<Stripe.Checkout.Session>;
    };
  };
  paymentIntents: { retrieve(id: string): Promise<Stripe.PaymentIntent> };
}

export async function stripe(): Promise<StripeClient> {
  const { secretKey, apiUrl } = config.stripe;
  if (!secretKey)
    throw new PaymentProviderUnavailableError(
      "Payments are not configured on this stage (no Stripe key): the wallet cannot be topped up.",
    );
  const call = <T>(method: "GET" | "POST", path: string, form?: URLSearchParams, idempotencyKey?: string) =>
    stripeRequest<T>({ secretKey, base: apiUrl ?? defaultApiUrl, method, path, form, idempotencyKey });
  return {
    checkout: {
      sessions: {
        create: (params, { idempotencyKey }) => call("POST", "/v1/checkout/sessions", formOf(params), idempotencyKey),
      },
    },
    paymentIntents: { retrieve: (id) => call("GET", `/v1/payment_intents/${encodeURIComponent(id)}`) },
  };
}

async function stripeRequest<T>(request: {
  secretKey: string;
  base: string;
  method: "GET" | "POST";
  path: string;
  form: URLSearchParams | undefined;
  idempotencyKey: string | undefined;
}): Promise<T> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${request.secretKey}`,
    "stripe-version": stripeApiVersion,
    accept: "application/json",
  };
  if (request.form) headers["content-type"] = "application/x-www-form-urlencoded";
  if (request.idempotencyKey) headers["idempotency-key"] = request.idempotencyKey;
  const url = new URL(request.path, request.base);
  for (let attempt = 0; ; attempt++) {
    let response: Response | undefined;
    let failure: unknown;
    try {
      response = await fetch(url, {
        method: request.method,
        headers,
        ...(request.form ? { body: request.form.toString() } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      failure = error;
    }
    if (attempt === 0 && shouldRetry(response)) {
      await response?.body?.cancel();
      await new Promise((resolve) => setTimeout(resolve, retryDelayMs));
      continue;
    }
    if (!response) throw failure;
    const body: unknown = await response.json().catch(() => undefined);
    if (!response.ok) throw new StripeApiError(response.status, body);
    return body as T;
  }
}

/** The library's `_shouldRetry` for a first attempt: no answer, Stripe's own advice, a conflict or a server error. */
function shouldRetry(response: Response | undefined): boolean {
  if (!response) return true;
  const advice = response.headers.get("stripe-should-retry");
  if (advice === "false") return false;
  if (advice === "true") return true;
  return response.status === 409 || response.status >= 500;
}

/** Stripe's form encoding: nested objects and arrays as `a[b][0][c]=…`; undefined left out, null as empty. */
function formOf(params: object): URLSearchParams {
  const form = new URLSearchParams();
  const add = (key: string, value: unknown): void => {
    if (value === undefined) return;
    if (value === null) form.append(key, "");
    else if (Array.isArray(value)) value.forEach((item, index) => add(`${key}[${index}]`, item));
    else if (typeof value === "object")
      for (const [name, inner] of Object.entries(value)) add(key ? `${key}[${name}]` : name, inner);
    else form.append(key, String(value));
  };
  add("", params);
  return form;
}

/**
 * The signed event, or undefined when the signature does not verify (or no signing secret is configured). Stripe's
 * scheme, as the library checks it: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=…]`, each v1 an HMAC-SHA256 of
 * `<t>.<payload>` under the endpoint's secret; one matching v1 suffices; a timestamp more than 300 s old is refused.
 */
export async function verifiedEvent(payload: string, signature: string | undefined): Promise<Stripe.Event | undefined> {
  const { webhookSecret } = config.stripe;
  if (!webhookSecret || !signature) return undefined;
  let timestamp = -1;
  const signatures: Buffer[] = [];
  for (const part of signature.split(",")) {
    const [name, value] = part.split("=");
    if (name === "t") timestamp = Number.parseInt(value ?? "", 10);
    if (name === "v1" && value) signatures.push(Buffer.from(value, "utf8"));
  }
  if (timestamp === -1 || signatures.length === 0) return undefined;
  const expected = Buffer.from(createHmac("sha256", webhookSecret).update(`${timestamp}.${payload}`).digest("hex"));
  if (!signatures.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected)))
    return undefined;
  if (Math.floor(Date.now() / 1000) - timestamp > signatureToleranceSeconds) return undefined;
  try {
    const event = JSON.parse(payload) as Stripe.Event | { object?: unknown };
    // A thin (v2) event notification is not a webhook event; the library refuses it too.
    return event.object === "v2.core.event" ? undefined : (event as Stripe.Event);
  } catch {
    return undefined;
  }
}

/** Stripe amounts are integers in the currency's minor unit (cents); ours are decimals with 4 places. */
export function fromMinorUnits(amount: number): string {
  return (amount / 100).toFixed(2);
}

export function toMinorUnits(amount: string): number {
  return Math.round(Number(amount) * 100);
}

export type { Stripe };
