import { percentile, printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";
import { recordEvent } from "#core/events/index";
import * as Organizations from "#core/organizations/index";
import { systemActor } from "#core/auth/actor";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import { seededRandom } from "#local/seeded-random";
import { startReceiver, verified, type Receiver, type ReceivedDelivery } from "#tests/helpers/webhooks";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Records `count` events (PhoneNumberAdded, as producers do) `concurrency` at a time; answers id → createdAt (ms). */
async function recordEvents(organizationId: string, count: number, concurrency = 20): Promise<Map<string, number>> {
  const created = new Map<string, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const event = await recordEvent(organizationId, {
          eventType: "PhoneNumberAdded",
          eventCategory: "PhoneNumber",
          description: `Bench number ${index} added.`,
          relatedEntityType: "PhoneNumber",
          relatedEntityId: `bench-${index}`,
        });
        created.set(`msg_${event.id}`, Date.parse(event.createdAt));
      }
    }),
  );
  return created;
}

/** webhook-id → time of its first 2xx at this receiver, and how many 2xx it got. */
function successes(receiver: Receiver, answered: Map<number, number>): Map<string, { firstAt: number; count: number }> {
  const byId = new Map<string, { firstAt: number; count: number }>();
  receiver.received.forEach((delivery, index) => {
    if ((answered.get(index) ?? 200) >= 300) return;
    const id = String(delivery.headers["webhook-id"]);
    const seen = byId.get(id);
    byId.set(
      id,
      seen
        ? { firstAt: Math.min(seen.firstAt, delivery.receivedAt), count: seen.count + 1 }
        : { firstAt: delivery.receivedAt, count: 1 },
    );
  });
  return byId;
}

/**
 * `npm run bench -- webhooks`: BENCH_WEBHOOK_EVENTS (10,000) events recorded in one organization with three endpoints
 * on loopback receivers, one answering 500 to 30 % of deliveries (seeded). Checks every event reached every receiver
 * exactly once with a 2xx (by webhook-id; every 100th request verified with `standardwebhooks` on arrival), and reports event → first 2xx
 * latency and deliveries per second. The retry schedule is scaled by 0.001 (5 ms, 60 ms, 300 ms, 1.8 s, …) so the
 * failing receiver's retries finish within the run; DynamoDB Local is warmed first (its JIT needs ~25 s of load).
 */
export async function webhooksBench(context: BenchContext): Promise<void> {
  process.env.WEBHOOK_RETRY_SCALE = process.env.BENCH_WEBHOOK_RETRY_SCALE ?? "0.001";
  const total = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 10_000);
  const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 25);

  // Warm-up: the same pipeline in another organization, for warmupSeconds.
  const warm = await Organizations.create({ name: "Bench webhooks warm-up" });
  const warmReceiver = await startReceiver();
  await WebhookEndpoints.create(systemActor(warm.organization.id), { url: warmReceiver.url });
  const warmUntil = Date.now() + warmupSeconds * 1000;
  let warmEvents = 0;
  while (Date.now() < warmUntil) {
    warmEvents += (await recordEvents(warm.organization.id, 10, 10)).size;
    await sleep(100);
  }
  await warmReceiver.waitFor((received) => received.length >= warmEvents, 300_000);
  await warmReceiver.close();

  const random = seededRandom(15);
  const failingAnswers = new Map<number, number>();
  // Every 100th delivery is verified with `standardwebhooks` as it arrives (its 5-minute timestamp tolerance).
  const secrets: string[] = [];
  let verifiedCount = 0;
  const check = (receiverIndex: number) => (delivery: ReceivedDelivery, index: number) => {
    if (index % 100 === 0) {
      verified(secrets[receiverIndex]!, delivery);
      verifiedCount++;
    }
  };
  const receivers = await Promise.all([
    startReceiver((delivery, index) => (check(0)(delivery, index), 200)),
    startReceiver((delivery, index) => (check(1)(delivery, index), 200)),
    startReceiver((delivery, index) => {
      check(2)(delivery, index);
      const status = random() < 0.3 ? 500 : 200;
      failingAnswers.set(index, status);
      return status;
    }),
  ]);
  for (const receiver of receivers)
    secrets.push(
      (
        await WebhookEndpoints.create(systemActor(context.organizationId), {
          url: receiver.url,
          enabledEventTypes: ["phone_number.added"],
        })
      ).secret,
    );

  // Unloaded latency first: BENCH_WEBHOOK_PACED events at 20 per second, each timed to its first 2xx at A.
  const pacedCount = Number(process.env.BENCH_WEBHOOK_PACED ?? 200);
  const paced = new Map<string, number>();
  for (let index = 0; index < pacedCount; index++) {
    for (const [id, at] of await recordEvents(context.organizationId, 1, 1)) paced.set(id, at);
    await sleep(50);
  }
  await receivers[0]!.waitFor((received) => received.length >= pacedCount, 120_000);
  const pacedFirst = successes(receivers[0]!, new Map());
  const pacedLatencies = [...paced].map(([id, at]) => pacedFirst.get(id)!.firstAt - at);
  await Promise.all(
    receivers.map((receiver) => receiver.waitFor((received) => received.length >= pacedCount, 120_000)),
  );
  await sleep(5_000); // the failing receiver's retries of the paced events
  for (const receiver of receivers) receiver.received.length = 0;
  failingAnswers.clear();

  const started = Date.now();
  const created = await recordEvents(context.organizationId, total);
  const recordedSeconds = (Date.now() - started) / 1000;
  const answered = [new Map<number, number>(), new Map<number, number>(), failingAnswers];
  const deadline = Date.now() + 600_000;
  let results = receivers.map((receiver, index) => successes(receiver, answered[index]!));
  let lastProgress = Date.now();
  while (results.some((byId) => byId.size < total) && Date.now() < deadline) {
    await sleep(250);
    if (Date.now() - lastProgress > 30_000) {
      lastProgress = Date.now();
      console.error(
        `webhooks bench: ${results.map((byId) => byId.size).join(" / ")} of ${total} delivered after ${Math.round((Date.now() - started) / 1000)} s`,
      );
    }
    results = receivers.map((receiver, index) => successes(receiver, answered[index]!));
  }
  await sleep(2_000); // a late duplicate would show now
  results = receivers.map((receiver, index) => successes(receiver, answered[index]!));
  const lastDelivery = Math.max(...results.flatMap((byId) => [...byId.values()].map((entry) => entry.firstAt)));
  const seconds = (lastDelivery - started) / 1000;

  const rows = results.map((byId, index) => {
    const latencies = [...created].flatMap(([id, at]) => (byId.has(id) ? [byId.get(id)!.firstAt - at] : []));
    return {
      receiver: index === 2 ? "C (30 % 500s)" : index === 0 ? "A" : "B",
      "events delivered": byId.size,
      lost: [...created.keys()].filter((id) => !byId.has(id)).length,
      "2xx more than once": [...byId.values()].filter((entry) => entry.count > 1).length,
      "requests received": receivers[index]!.received.length,
      "latency p50 ms": Math.round(percentile(latencies, 50)),
      "latency p99 ms": Math.round(percentile(latencies, 99)),
    };
  });
  printTable(`Webhooks: unloaded event → delivery latency (${pacedCount} events at 20/s, endpoint A)`, [
    { name: "p50 ms", value: Math.round(percentile(pacedLatencies, 50)) },
    { name: "p99 ms", value: Math.round(percentile(pacedLatencies, 99)) },
  ]);
  printTable(
    `Webhooks: ${total} events → 3 endpoints (events recorded in ${recordedSeconds.toFixed(1)} s, after ${warmEvents} warm-up events)`,
    rows,
  );
  const delivered = results.reduce((sum, byId) => sum + byId.size, 0);
  printTable("Webhooks: throughput", [
    { name: "successful deliveries", value: delivered },
    {
      name: "HTTP requests (with retries)",
      value: receivers.reduce((sum, receiver) => sum + receiver.received.length, 0),
    },
    { name: "first event recorded → last delivery, s", value: Number(seconds.toFixed(1)) },
    { name: "deliveries per second", value: Math.round(delivered / seconds) },
    { name: "deliveries verified with standardwebhooks on arrival", value: verifiedCount },
  ]);
  await Promise.all(receivers.map((receiver) => receiver.close()));
  if (rows.some((row) => row.lost > 0 || row["2xx more than once"] > 0))
    throw new Error("Webhook deliveries were lost or duplicated.");
}
