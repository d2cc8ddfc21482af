import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { TestOrganization } from "#tests/helpers/stack";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Resolves once `done(received)` holds (checked at each arrival); fails after `timeoutMs`. */
  waitFor(done: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on loopback. `answer` picks the status (and body) of each delivery in arrival order
 * (default 200), so a test can fail the first attempts, answer 410, or stall.
 */
export async function startReceiver(
  answer: (
    delivery: ReceivedDelivery,
    index: number,
  ) => number | { status: number; body?: string; delayMs?: number } = () => 200,
): Promise<Receiver> {
  const received: ReceivedDelivery[] = [];
  const arrivals = new Set<() => void>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const delivery = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        receivedAt: Date.now(),
      };
      received.push(delivery);
      for (const arrived of arrivals) arrived();
      const reply = answer(delivery, received.length - 1);
      const { status, body = "ok", delayMs = 0 } = typeof reply === "number" ? { status: reply } : reply;
      setTimeout(() => response.writeHead(status, { "content-type": "text/plain" }).end(body), delayMs);
    });
  });
  // Neither the listener nor a kept-alive connection of the product's HTTP client keeps a test process alive.
  server.on("connection", (socket) => socket.unref());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    waitFor(done, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          try {
            if (!done(received)) return;
            resolve(received);
          } catch (error) {
            reject(error as Error);
          }
          settle();
        };
        const timer = setTimeout(() => {
          settle();
          reject(new Error(`receiver: condition not met after ${timeoutMs} ms (${received.length} deliveries)`));
        }, timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          arrivals.delete(check);
        };
        arrivals.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Verifies a delivery with the public `standardwebhooks` library (never our own code) and answers its payload. */
export function verified(secret: string, delivery: ReceivedDelivery): any {
  const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
  return new Webhook(secret).verify(delivery.body, headers);
}

/** The parsed payloads of deliveries of one type. */
export function ofType(received: ReceivedDelivery[], type: string): ReceivedDelivery[] {
  return received.filter((delivery) => JSON.parse(delivery.body).type === type);
}

/** A webhook delivery's payload (docs/webhooks.md "What a delivery looks like"). */
export interface EventPayload {
  id: string;
  type: string;
  timestamp: string;
  data: any;
  event: any;
}

/** The payloads of one type. */
export function payloadsOf(payloads: EventPayload[], type: string): EventPayload[] {
  return payloads.filter((payload) => payload.type === type);
}

/** The integrator webhooks of one test organization, verified with the endpoint's secret as an integrator would. */
export interface EventStream {
  /** Resolves with every payload delivered so far once `done` holds for them (checked at each arrival). */
  awaitEvents(done: (payloads: EventPayload[]) => boolean, timeoutMs?: number): Promise<EventPayload[]>;
  /** The first delivered payload of `type` for which `matches` holds (one delivered before the call counts too). */
  awaitEvent(type: string, matches?: (payload: EventPayload) => boolean, timeoutMs?: number): Promise<EventPayload>;
  close(): Promise<void>;
}

/**
 * Subscribes a receiver of the test to the organization's webhooks of `types` (`POST /webhook-endpoints`), so a test
 * awaits the event that signals what it waits for. Subscribe before the work starts: an event recorded before the
 * endpoint existed is not delivered.
 */
export async function subscribeToEvents(org: TestOrganization, types: readonly string[]): Promise<EventStream> {
  const receiver = await startReceiver();
  const response = await org.request("POST", "/webhook-endpoints", {
    body: { url: receiver.url, enabledEventTypes: [...types] },
  });
  if (response.status !== 201) {
    await receiver.close();
    throw new Error(`webhook endpoint not created: ${response.status} ${JSON.stringify(response.body)}`);
  }
  const secret: string = response.body.secret;
  const payloads = new Map<ReceivedDelivery, EventPayload>();
  const verifiedPayloads = (received: ReceivedDelivery[]) =>
    received.map(
      (delivery) => payloads.get(delivery) ?? payloads.set(delivery, verified(secret, delivery)).get(delivery)!,
    );
  const stream: EventStream = {
    async awaitEvents(done, timeoutMs = 30_000) {
      return verifiedPayloads(await receiver.waitFor((received) => done(verifiedPayloads(received)), timeoutMs));
    },
    async awaitEvent(type, matches = () => true, timeoutMs) {
      const found = (all: EventPayload[]) => all.find((payload) => payload.type === type && matches(payload));
      return found(await stream.awaitEvents((all) => found(all) !== undefined, timeoutMs))!;
    },
    close: () => receiver.close(),
  };
  return stream;
}
