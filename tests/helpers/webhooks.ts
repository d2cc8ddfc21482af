import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface Receiver {
  url: string;
  received: ReceivedDelivery[];
  /** Resolves once `done(received)` holds; fails after `timeoutMs`. */
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
      const reply = answer(delivery, received.length - 1);
      const { status, body = "ok", delayMs = 0 } = typeof reply === "number" ? { status: reply } : reply;
      setTimeout(() => response.writeHead(status, { "content-type": "text/plain" }).end(body), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async waitFor(done, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done(received)) {
        if (Date.now() > deadline)
          throw new Error(`receiver: condition not met after ${timeoutMs} ms (${received.length} deliveries)`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received;
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
