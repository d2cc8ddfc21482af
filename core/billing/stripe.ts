import type Stripe from "stripe";
import { config } from "#core/config";
import { PaymentProviderUnavailableError } from "#core/errors";

/**
 * The official Stripe library, loaded on first use: only the top-up and
 * payment-webhook functions reach it, and the import costs the others nothing.
 * Locally (and in tests) `STRIPE_API_URL` points it at the payment simulator
 * (local/payment-simulator.ts), which checks each request as Stripe would.
 */
let client: Promise<Stripe> | undefined;
let clientKey: string | undefined;

export async function stripe(): Promise<Stripe> {
  const { secretKey, apiUrl } = config.stripe;
  if (!secretKey)
    throw new PaymentProviderUnavailableError(
      "Payments are not configured on this stage (no Stripe key): the wallet cannot be topped up.",
    );
  const identity = `${secretKey}@${apiUrl ?? ""}`;
  if (!client || clientKey !== identity) {
    clientKey = identity;
    client = import("stripe").then(({ default: StripeClient }) => {
      const target = apiUrl ? new URL(apiUrl) : undefined;
      return new StripeClient(secretKey, {
        // One retry of a network failure or 5xx, with the same Idempotency-Key (the library's own policy), within the function's 20 s.
        maxNetworkRetries: 1,
        timeout: 6_000,
        ...(target
          ? { host: target.hostname, port: target.port, protocol: target.protocol.replace(":", "") as "http" | "https" }
          : {}),
      });
    });
  }
  return client;
}

/** The signed event, or undefined when the signature does not verify (or no signing secret is configured). */
export async function verifiedEvent(payload: string, signature: string | undefined): Promise<Stripe.Event | undefined> {
  const { webhookSecret } = config.stripe;
  if (!webhookSecret || !signature) return undefined;
  const { default: StripeClient } = await import("stripe");
  try {
    // Verification needs no API key: the static webhooks helper (default 300 s timestamp tolerance against replays).
    return StripeClient.webhooks.constructEvent(payload, signature, webhookSecret);
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
