import { randomUUID } from "node:crypto";
import { printTable, untilQuiet } from "#bench/measure";
import type { BenchContext } from "#bench/run";
import { startMeasuring, stopMeasuring } from "#core/observability/call-count";
import { itemSize, partitionKind, unitsByPartition, type PartitionUnits } from "#bench/partitions";
import { table } from "#core/db/items";

/**
 * `npm run bench -- hot-org` (docs/scale.md): hammers one organization with
 * lead intake, each lead texted by an automation, for `HOT_ORG_SECONDS`
 * (default 20) at `HOT_ORG_CONCURRENCY` (default 16) concurrent sellers, texting from `HOT_ORG_NUMBERS` (12), and
 * counts what the scale model needs: write and read units per partition key
 * (table and each index) per lead by AWS's rules (bench/partitions.ts), their
 * load at 10,000 leads a minute (plus 1,000 organizations at 1% on the keys no
 * organization owns), the leads/s one organization can sustain under AWS's
 * per-partition limits, and cancelled transactions and failed conditions.
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
  // Enough long codes for the local rate at 1 MPS each (at the goal an organization texts from ~170): with two, the
  // texts queued at the numbers' pacing gates and their refused conditional writes and re-reads swamped the figures.
  const numbers = Number(process.env.HOT_ORG_NUMBERS ?? 12);
  for (let index = 0; index < numbers; index++)
    await api("POST", "/phone-numbers", {
      phoneNumber: `+1212555${String(1000 + index).padStart(4, "0")}`,
      capabilities: ["sms", "mms", "voice"],
    });
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
  await untilQuiet(3000, measurement);
  stopMeasuring();
  const calls = measurement.calls;
  const errors = new Map<string, number>();
  for (const call of calls)
    if (call.error) errors.set(`${call.command} ${call.error}`, (errors.get(`${call.command} ${call.error}`) ?? 0) + 1);
  console.log(
    `\nhot organization: ${accepted} leads accepted (${refused} refused) in ${loadSeconds.toFixed(1)} s at ${concurrency} concurrent sellers = ${(accepted / loadSeconds).toFixed(1)} leads/s; ${calls.length} AWS calls`,
  );
  const { units, byItem, readsByItem } = unitsByPartition(calls, await itemSizes());
  printPartitions(units, context.organizationId, Math.max(1, accepted));
  // What the organization's own partition still takes, by kind of item (the next ones to move out of it).
  const own = (perItem: Map<string, number>) => {
    const kinds = new Map<string, number>();
    for (const [item, amount] of perItem) {
      const [pk, sk] = item.split("|");
      if (pk !== `ORG#${context.organizationId}`) continue;
      const kind = partitionKind(sk!, context.organizationId).split("#").slice(0, 2).join("#");
      kinds.set(kind, (kinds.get(kind) ?? 0) + amount);
    }
    return [...kinds].sort(([, a], [, b]) => b - a);
  };
  printTable(
    `write units per lead on the organization's own partition ORG#<org>, by kind of item`,
    own(byItem).map(([kind, written]) => ({
      "sort key": kind,
      "WCU/lead": (written / Math.max(1, accepted)).toFixed(2),
    })),
  );
  printTable(
    `read units per lead on the organization's own partition ORG#<org>, by kind of item (a query by its sort-key bound)`,
    own(readsByItem).map(([kind, read]) => ({
      "sort key": kind,
      "RCU/lead": (read / Math.max(1, accepted)).toFixed(2),
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

/** A kind of key spread by a hash over numbered shards. */
const hashSharded = (kind: string) => kind.endsWith("#<n>");

/** The goal: one organization at 10,000 leads a minute, 1,000 others at 1% of that; AWS's per-partition limits. */
const goal = { leadsPerSecond: 167, others: 1000 * 1.67, writeLimit: 1000, readLimit: 3000 };

/**
 * Units per partition key, by kind of key: a kind with few keys however many leads (the organization's listings
 * and their shards, its settings, the cross-organization due-work shards) takes a share of every lead, so its
 * hottest key's units per lead times the goal rate is its load; a kind with a key per lead, message or event takes
 * only that item's own writes, whatever the rate (its hottest key over the run is shown).
 */
function printPartitions(units: Map<string, PartitionUnits>, organizationId: string, leads: number): void {
  const kinds = new Map<string, { keys: number; hottest: PartitionUnits; write: number; read: number }>();
  for (const [partition, used] of units) {
    const kind = partitionKind(partition, organizationId);
    const entry = kinds.get(kind) ?? { keys: 0, hottest: { write: 0, read: 0 }, write: 0, read: 0 };
    entry.keys++;
    entry.write += used.write;
    entry.read += used.read;
    entry.hottest = {
      write: Math.max(entry.hottest.write, used.write),
      read: Math.max(entry.hottest.read, used.read),
    };
    kinds.set(kind, entry);
  }
  // Shared: few keys however many leads, or a key that names no item (only shards: 64 due-work shards are still
  // shared by every lead, though a short run touches more of them than it has leads / 4).
  const isShared = (kind: string, keys: number) => keys <= Math.max(16, leads / 4) || !/<id>|<phone>|<time>/.test(kind);
  const shared = [...kinds].filter(([kind, entry]) => isShared(kind, entry.keys));
  const perItem = [...kinds].filter(([kind, entry]) => !isShared(kind, entry.keys));
  let sustainable = Infinity;
  const rows = shared
    .map(([kind, entry]) => {
      // Hash shards (`#<n>`) spread evenly over the goal's millions of items: their mean is the load; the hottest of
      // 64 shards in a run of a hundred leads is chance (about three times the mean).
      const perKey = hashSharded(kind)
        ? { write: entry.write / entry.keys, read: entry.read / entry.keys }
        : entry.hottest;
      const write = perKey.write / leads;
      const read = perKey.read / leads;
      // A key no organization owns (the due-work shards) also takes the 1,000 other organizations' leads.
      const crossOrganization = !kind.includes("<org>");
      const rate = goal.leadsPerSecond + (crossOrganization ? goal.others : 0);
      const limit = Math.min(
        write > 0 ? goal.writeLimit / write : Infinity,
        read > 0 ? goal.readLimit / read : Infinity,
      );
      const leadsPerSecond = limit - (crossOrganization ? goal.others : 0);
      sustainable = Math.min(sustainable, leadsPerSecond);
      return {
        "partition key (hottest of its kind)": hashSharded(kind) ? `${kind} (mean)` : kind,
        keys: entry.keys,
        "WCU/lead": write.toFixed(2),
        "RCU/lead": read.toFixed(2),
        "WCU/s at goal": (write * rate).toFixed(0),
        "RCU/s at goal": (read * rate).toFixed(0),
        "org leads/s it allows": Number.isFinite(leadsPerSecond) ? leadsPerSecond.toFixed(0) : "-",
      };
    })
    .sort((a, b) => Number(b["WCU/s at goal"]) - Number(a["WCU/s at goal"]));
  printTable(
    `units per partition key shared by many leads (AWS's rules: 2 WCU per KB per item in a transaction; goal ${goal.leadsPerSecond} leads/s for this organization, + ${goal.others} leads/s of 1,000 others on keys no organization owns; limits ${goal.writeLimit} WCU/s and ${goal.readLimit} RCU/s per partition)`,
    rows,
  );
  printTable(
    "partition keys of one item each (a lead, message, event…): bounded by that item's own life, not by the rate",
    perItem
      .map(([kind, entry]) => ({
        "partition key": kind,
        keys: entry.keys,
        "WCU/lead (all keys)": (entry.write / leads).toFixed(2),
        "RCU/lead (all keys)": (entry.read / leads).toFixed(2),
        "hottest key WCU (whole run)": entry.hottest.write.toFixed(0),
        "hottest key RCU (whole run)": entry.hottest.read.toFixed(1),
      }))
      .sort((a, b) => Number(b["WCU/lead (all keys)"]) - Number(a["WCU/lead (all keys)"])),
  );
  const total = [...units.values()].reduce(
    (sum, used) => ({ write: sum.write + used.write, read: sum.read + used.read }),
    { write: 0, read: 0 },
  );
  console.log(
    `per lead, all partitions: ${(total.write / leads).toFixed(1)} WCU, ${(total.read / leads).toFixed(1)} RCU (AWS's rules)`,
  );
  console.log(
    `sustainable leads/s for one organization under AWS's per-partition limits (with 1,000 others at 1%): ${sustainable.toFixed(0)} (goal ${goal.leadsPerSecond})`,
  );
}

/** Each item's size at the end of the run (`pk|sk` → bytes): the size an update's units are counted on. */
async function itemSizes(): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({ ExclusiveStartKey });
    for (const item of page.Items ?? []) sizes.set(`${String(item.pk)}|${String(item.sk)}`, itemSize(item));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return sizes;
}
