import { randomBytes } from "node:crypto";
import { text } from "node:stream/consumers";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Stripe from "stripe";

/**
 * The payment simulator: a local stand-in for api.stripe.com for `npm start`
 * and the tests. It answers only the requests the API makes (create a
 * Checkout Session, read a PaymentIntent), refusing any that Stripe would
 * refuse (key, Idempotency-Key, form fields), and plays the payer and the
 * card network: paying a session, refunding, disputing — each sent to the API
 * as a Stripe event signed with the endpoint's signing secret, exactly as
 * Stripe delivers it. A developer pays from the browser at the session's
 * checkout URL; tests use the JSON controls under `/simulator/`.
 */

export interface PaymentSimulator {
  url: string;
  secretKey: string;
  webhookSecret: string;
  stop(): Promise<void>;
}

interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  form: Record<string, string>;
}

type Json = Record<string, any>;

export interface EventDelivery {
  eventId: string;
  type: string;
  status: number;
  body: string;
}

export async function startPaymentSimulator(options: {
  webhookUrl: () => string;
  port?: number;
}): Promise<PaymentSimulator> {
  const secretKey = "sk_test_local_payment_simulator";
  const webhookSecret = `whsec_${randomBytes(24).toString("base64url")}`;
  const sessions = new Map<string, Json>();
  const intents = new Map<string, Json>();
  const charges = new Map<string, Json>();
  const disputes = new Map<string, Json>();
  const byIdempotencyKey = new Map<string, { form: string; session: Json }>();
  const requests: RecordedRequest[] = [];
  const id = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;
  const now = () => Math.floor(Date.now() / 1000);

  async function send(type: string, object: Json): Promise<EventDelivery> {
    const event = {
      id: id("evt"),
      object: "event",
      api_version: "2026-10-28.endive",
      created: now(),
      data: { object },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const response = await fetch(options.webhookUrl(), {
      method: "POST",
      headers: {
        "content-type": "application/json; charset=utf-8",
        "stripe-signature": signature,
        "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      },
      body: payload,
    });
    return { eventId: event.id, type, status: response.status, body: await response.text() };
  }

  /** Requests still to answer with a 500 (an outage at the provider). */
  let outage = 0;

  function pay(session: Json, deliver = true): Promise<EventDelivery[]> {
    const chargeId = id("ch");
    const intent = {
      id: id("pi"),
      object: "payment_intent",
      amount: session.amount_total,
      amount_received: session.amount_total,
      currency: session.currency,
      status: "succeeded",
      metadata: session.payment_intent_data_metadata,
      latest_charge: chargeId,
      created: now(),
      livemode: false,
    };
    intents.set(intent.id, intent);
    charges.set(chargeId, {
      id: chargeId,
      object: "charge",
      amount: intent.amount,
      amount_captured: intent.amount,
      amount_refunded: 0,
      currency: intent.currency,
      paid: true,
      refunded: false,
      disputed: false,
      status: "succeeded",
      payment_intent: intent.id,
      metadata: {},
      created: now(),
      livemode: false,
    });
    Object.assign(session, { payment_intent: intent.id, payment_status: "paid", status: "complete", url: null });
    if (!deliver) return Promise.resolve([]);
    return Promise.all([
      send("checkout.session.completed", publicSession(session)),
      send("payment_intent.succeeded", intent),
    ]);
  }

  function chargeOfPayment(paymentIntentId: string): Json | undefined {
    const intent = intents.get(paymentIntentId);
    return intent ? charges.get(intent.latest_charge) : undefined;
  }

  async function control(path: string, body: Json): Promise<[number, unknown]> {
    const [, , kind, objectId, action] = path.split("/");
    if (kind === "requests") return [200, requests];
    if (kind === "outage") {
      outage = Number(body.requests ?? 1);
      return [200, { outage }];
    }
    if (kind === "sessions" && objectId) {
      const session = sessions.get(objectId);
      if (!session) return [404, { error: "no such session" }];
      if (action === "pay") {
        if (session.status !== "open") return [409, { error: `session is ${session.status}` }];
        // `deliver: false` pays without sending the events (tests: a refund or dispute reported before the payment's own event).
        const deliveries = await pay(session, body.deliver !== false);
        return [200, { deliveries, paymentIntentId: session.payment_intent, session: publicSession(session) }];
      }
      if (action === "expire") {
        Object.assign(session, { status: "expired", url: null });
        return [200, { deliveries: [await send("checkout.session.expired", publicSession(session))] }];
      }
    }
    if (kind === "payments" && objectId) {
      const charge = chargeOfPayment(objectId);
      if (!charge) return [404, { error: "no such payment" }];
      if (action === "refund") {
        const amount = Number(body.amount ?? charge.amount - charge.amount_refunded);
        charge.amount_refunded = Math.min(charge.amount, charge.amount_refunded + amount);
        charge.refunded = charge.amount_refunded === charge.amount;
        return [200, { deliveries: [await send("charge.refunded", { ...charge })] }];
      }
      if (action === "dispute") {
        const dispute = {
          id: id("dp"),
          object: "dispute",
          amount: Number(body.amount ?? charge.amount),
          currency: charge.currency,
          charge: charge.id,
          payment_intent: charge.payment_intent,
          reason: body.reason ?? "fraudulent",
          status: "needs_response",
          created: now(),
          livemode: false,
        };
        disputes.set(dispute.id, dispute);
        charge.disputed = true;
        return [200, { disputeId: dispute.id, deliveries: [await send("charge.dispute.created", { ...dispute })] }];
      }
    }
    if (kind === "disputes" && objectId && action === "close") {
      const dispute = disputes.get(objectId);
      if (!dispute) return [404, { error: "no such dispute" }];
      dispute.status = body.status === "won" ? "won" : "lost";
      return [200, { deliveries: [await send("charge.dispute.closed", { ...dispute })] }];
    }
    if (kind === "events" && action === undefined && objectId === undefined) {
      // Replays one event as given (tests: duplicates and out-of-order delivery).
      return [200, { deliveries: [await send(String(body.type), body.object as Json)] }];
    }
    return [404, { error: "unknown control" }];
  }

  function createSession(request: RecordedRequest, raw: string): [number, unknown] {
    const form = request.form;
    const missing = [
      "mode",
      "line_items[0][quantity]",
      "line_items[0][price_data][currency]",
      "line_items[0][price_data][unit_amount]",
      "line_items[0][price_data][product_data][name]",
      "metadata[organizationId]",
      "metadata[topUpId]",
      "payment_intent_data[metadata][organizationId]",
      "payment_intent_data[metadata][topUpId]",
      "success_url",
      "cancel_url",
    ].filter((field) => !form[field]);
    if (missing.length) return [400, stripeError(`Missing required param: ${missing[0]}.`, missing[0])];
    const unitAmount = Number(form["line_items[0][price_data][unit_amount]"]);
    if (form.mode !== "payment" || !Number.isInteger(unitAmount) || unitAmount < 50)
      return [400, stripeError("Invalid mode or amount.", "line_items[0][price_data][unit_amount]")];
    if (!request.idempotencyKey)
      return [
        400,
        stripeError(
          "This simulator requires an Idempotency-Key on every POST, as the API always sends one.",
          "idempotency_key",
        ),
      ];
    const earlier = byIdempotencyKey.get(request.idempotencyKey);
    if (earlier)
      return earlier.form === raw
        ? [200, publicSession(earlier.session)]
        : [
            400,
            stripeError(
              "Keys for idempotent requests can only be used with the same parameters they were first used with.",
              "idempotency_key",
            ),
          ];
    const sessionId = id("cs_test");
    const session: Json = {
      id: sessionId,
      object: "checkout.session",
      amount_subtotal: unitAmount * Number(form["line_items[0][quantity]"]),
      amount_total: unitAmount * Number(form["line_items[0][quantity]"]),
      currency: form["line_items[0][price_data][currency]"],
      client_reference_id: form.client_reference_id ?? null,
      metadata: { organizationId: form["metadata[organizationId]"], topUpId: form["metadata[topUpId]"] },
      payment_intent_data_metadata: {
        organizationId: form["payment_intent_data[metadata][organizationId]"],
        topUpId: form["payment_intent_data[metadata][topUpId]"],
      },
      mode: "payment",
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      success_url: form.success_url,
      cancel_url: form.cancel_url,
      url: `${simulatorUrl}/pay/${sessionId}`,
      created: now(),
      livemode: false,
    };
    sessions.set(sessionId, session);
    byIdempotencyKey.set(request.idempotencyKey, { form: raw, session });
    return [200, publicSession(session)];
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const raw = await text(request);
    const url = new URL(request.url ?? "/", "http://simulator");
    const reply = (status: number, body: unknown, type = "application/json") => {
      response.writeHead(status, { "content-type": type });
      response.end(typeof body === "string" ? body : JSON.stringify(body));
    };
    if (url.pathname.startsWith("/simulator/")) {
      const [status, body] = await control(url.pathname, raw ? JSON.parse(raw) : {});
      return reply(status, body);
    }
    if (url.pathname.startsWith("/pay/")) {
      const session = sessions.get(url.pathname.slice("/pay/".length));
      if (!session) return reply(404, "<h1>No such payment</h1>", "text/html");
      if (request.method === "POST" && session.status === "open") {
        await pay(session);
        response.writeHead(303, { location: session.success_url });
        return void response.end();
      }
      const amount = (session.amount_total / 100).toFixed(2);
      return reply(
        200,
        `<!doctype html><title>Payment simulator</title><h1>Wallet top-up: ${amount} ${String(session.currency).toUpperCase()}</h1>` +
          (session.status === "open"
            ? `<p>Local payment simulator: no card is charged.</p><form method="post"><button>Pay ${amount}</button></form><p><a href="${session.cancel_url}">Cancel</a></p>`
            : `<p>This payment is ${session.status}.</p>`),
        "text/html",
      );
    }
    const recorded: RecordedRequest = {
      method: request.method ?? "GET",
      path: url.pathname,
      authorization: request.headers.authorization,
      idempotencyKey: header(request, "idempotency-key"),
      form: Object.fromEntries(new URLSearchParams(raw)),
    };
    requests.push(recorded);
    if (outage > 0) {
      outage--;
      return reply(500, stripeError("An error occurred with our connection to Stripe.", undefined, "api_error"));
    }
    if (recorded.authorization !== `Bearer ${secretKey}`)
      return reply(401, stripeError("Invalid API Key provided.", undefined, "invalid_request_error"));
    if (recorded.method === "POST" && url.pathname === "/v1/checkout/sessions")
      return reply(...createSession(recorded, raw));
    const intentMatch = /^\/v1\/payment_intents\/([^/]+)$/.exec(url.pathname);
    if (recorded.method === "GET" && intentMatch) {
      const intent = intents.get(intentMatch[1]!);
      return intent ? reply(200, intent) : reply(404, stripeError(`No such payment_intent: '${intentMatch[1]}'`, "id"));
    }
    return reply(404, stripeError(`Unrecognized request URL (${recorded.method}: ${url.pathname}).`));
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          error: { message: error instanceof Error ? error.message : String(error), type: "api_error" },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const simulatorUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: simulatorUrl,
    secretKey,
    webhookSecret,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A session as Stripe shows it (without the simulator's own bookkeeping). */
function publicSession(session: Json): Json {
  const { payment_intent_data_metadata: _, ...visible } = session;
  return visible;
}

function stripeError(message: string, param?: string, type = "invalid_request_error"): Json {
  return { error: { message, type, ...(param ? { param } : {}) } };
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
