import { randomUUID } from "node:crypto";
import { printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";
import { startMeasuring, stopMeasuring } from "#core/observability/call-count";

/**
 * `npm run bench -- hot-org` (docs/scale.md): hammers one organization with
 * lead intake, each lead texted by an automation, for `HOT_ORG_SECONDS`
 * (default 20) at `HOT_ORG_CONCURRENCY` (default 16) concurrent sellers, and
 * counts what the scale model needs: cancelled transactions and failed
 * conditions (conflict retries), and the items written most often — per lead
 * and per second, to extrapolate to 10,000 leads a minute.
 */
export async function hotOrgBench(context: BenchContext): Promise<void> {
  const seconds = Number(process.env.HOT_ORG_SECONDS ?? 20);
  const concurrency = Number(process.env.HOT_ORG_CONCURRENCY ?? 16);
  const auth = { authorization: `Bearer ${context.apiKey}`, "content-type": "application/json" };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${context.baseUrl}${path}`, {
      method,
      headers: { ...auth, "idempotency-key": randomUUID() },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  await api("POST", "/phone-numbers", { phoneNumber: "+12125550143", capabilities: ["sms", "mms", "voice"] });
  await api("POST", "/phone-numbers", { phoneNumber: "+12125550144", capabilities: ["sms", "mms", "voice"] });
  const source = await api("POST", "/sources", { name: "Hot seller" });
  await api("POST", "/automations", {
    name: "Text every lead",
    enabled: true,
    triggers: [{ id: "t", type: "LeadCreated", settings: {} }],
    actions: [{ id: "a", type: "SendSms", settings: { body: "Hi {{contact.firstName|there}}" } }],
    connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "a" }],
  });
  const measurement = startMeasuring();
  const began = Date.now();
  let accepted = 0;
  let refused = 0;
  const seller = async () => {
    while (Date.now() - began < seconds * 1000) {
      const phone = `+1201${200 + Math.floor(Math.random() * 700)}${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;
      const response = await fetch(`${context.baseUrl}/leads/intake`, {
        method: "POST",
        headers: { "x-source-id": source.sourceId, "x-source-key": source.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ FirstName: "Hot", Phone: phone }),
      });
      await response.text();
      if (response.status < 300) accepted++;
      else refused++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, seller));
  const loadSeconds = (Date.now() - began) / 1000;
  // Let the consumers finish the texts.
  let seen = -1;
  while (measurement.calls.length !== seen) {
    seen = measurement.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 3000));
  }
  stopMeasuring();
  const calls = measurement.calls.filter((call) => call.index !== "gsi3");
  const errors = new Map<string, number>();
  for (const call of calls)
    if (call.error) errors.set(`${call.command} ${call.error}`, (errors.get(`${call.command} ${call.error}`) ?? 0) + 1);
  const writes = new Map<string, number>();
  for (const call of calls)
    if (!call.error) for (const key of call.writtenKeys) writes.set(key, (writes.get(key) ?? 0) + 1);
  // Items keyed by a lead, message, event… are written a few times each; the hot ones are shared by the organization.
  const hot = [...writes].sort(([, a], [, b]) => b - a).slice(0, 12);
  const perLead = (count: number) => count / Math.max(1, accepted);
  console.log(
    `\nhot organization: ${accepted} leads accepted (${refused} refused) in ${loadSeconds.toFixed(1)} s at ${concurrency} concurrent sellers = ${(accepted / loadSeconds).toFixed(1)} leads/s; ${calls.length} AWS calls`,
  );
  printTable(
    "items written most often (per lead accepted, and extrapolated to 10,000 leads/min = 167 leads/s)",
    hot.map(([key, count]) => ({
      item: key.replace(/[0-9A-HJKMNP-TV-Z]{26}/g, "<id>"),
      writes: count,
      "per lead": perLead(count).toFixed(2),
      "writes/s at 167 leads/s": (perLead(count) * 167).toFixed(0),
    })),
  );
  printTable(
    "failed calls (transaction cancellations and conflicts are retried by transact(); conditions are expected outcomes)",
    [...errors].map(([kind, count]) => ({
      kind,
      count,
      "per 1,000 leads": ((count / Math.max(1, accepted)) * 1000).toFixed(1),
    })),
  );
}
