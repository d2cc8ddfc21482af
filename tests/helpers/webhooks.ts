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
  /** Resolves once `done(received)` holds (checked at each arrival, not on a timer); fails after `timeoutMs`. */
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

/** The integrator webhooks of one test organization, as an integrator receives them. */
export interface EventStream {
  /**
   * Resolves with the first delivered payload of one of `types` for which `matches` holds (one delivered before the
   * call counts too), verified with the endpoint's secret; fails after `timeoutMs`.
   */
  awaitEvent(
    types: readonly string[],
    matches: (payload: EventPayload) => boolean,
    timeoutMs?: number,
  ): Promise<EventPayload>;
}

/**
 * The completions a test most often waits for, each signalled by a webhook the product sends: a lead leaving Pending
 * and an outbound message reaching a final status (Canceled has no webhook type: docs/decisions.md, issue 26).
 */
export const leadSettledTypes = ["lead.processed", "lead.duplicate", "lead.rejected", "lead.failed"] as const;
export const messageFinalTypes = [
  "message.delivered",
  "message.undelivered",
  "message.failed",
  "message.blocked",
] as const;

/**
 * Subscribes a receiver of ours to the organization's webhooks of `types` (`POST /webhook-endpoints`, as an
 * integrator would), so a test awaits the event that signals a completion instead of polling a resource for it.
 * Subscribe before the work starts: an event recorded before the endpoint existed is not delivered.
 */
export async function subscribeToEvents(org: TestOrganization, types: readonly string[]): Promise<EventStream> {
  const receiver = await startReceiver();
  const response = await org.request("POST", "/webhook-endpoints", {
    body: { url: receiver.url, description: "test events", enabledEventTypes: [...types] },
  });
  if (response.status !== 201)
    throw new Error(`webhook endpoint not created: ${response.status} ${JSON.stringify(response.body)}`);
  const secret: string = response.body.secret;
  return {
    async awaitEvent(wanted, matches, timeoutMs = 20_000) {
      const found = (received: ReceivedDelivery[]) =>
        received
          .map((delivery) => verified(secret, delivery) as EventPayload)
          .find((payload) => wanted.includes(payload.type) && matches(payload));
      return found(await receiver.waitFor((received) => found(received) !== undefined, timeoutMs))!;
    },
  };
}
