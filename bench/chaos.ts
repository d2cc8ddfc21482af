import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { sweepHolds } from "#core/maintenance/hold-sweeper";
import * as Billing from "#core/billing/index";
import { sweepDueCalls } from "#core/calls/sweeper";
import { LEASE_MS } from "#core/automations/runs/engine";
import { sweepAutomations } from "#core/automations/runs/schedule";
import { db, tableName } from "#core/db/client";
import * as LeadProcessing from "#core/leads/processing";
import { SWEEP_ATTEMPTS as LEAD_SWEEP_ATTEMPTS } from "#core/leads/processing";
import { messageLifecycle, callLifecycle, type CallStatus, type MessageStatus } from "#core/shared/status";
import { toEventRecord } from "#core/events/index";
import { DISPATCH_GRACE_MS, eventTypeOfStatus } from "#core/messaging/lifecycle";
import { callEventTypes } from "#core/calls/lifecycle";
import { SWEEP_ATTEMPTS as MESSAGE_SWEEP_ATTEMPTS, sweepDueMessages } from "#core/messaging/sweeper";
import { holdOnMessage } from "#core/messaging/store";
import * as Organizations from "#core/organizations/index";
import * as Users from "#core/users/index";
import { maxRequestMs } from "#core/idempotency/index";
import { freePort, waitFor } from "#local/net";
import { turnQuietHoursOff } from "#local/organizations";
import { projectRoot } from "#local/paths";
import { applyShortWaits } from "#local/short-waits";
import { seededRandom } from "#local/seeded-random";
import { readJson, stackStatePath, type StackState } from "#local/state";
import { installSimulator } from "#core/providers/simulator/install";
import { toMessage } from "#core/messaging/store";
import { toStoredRun } from "#core/db/entities/packed-runs";

// This process runs the due-work sweeps itself (carrier status look-ups included), with the stack's PROVIDER.
installSimulator();

/**
 * `npm run chaos [-- --cycles 5 --seed 42 --keep]`: fault injection against
 * the local stack. Starts the stack on its own state folder (DynamoDB Local on
 * disk), drives a mixed load (leads through all three intake routes, sends to
 * simulator scenarios that deliver, fail, retry and never answer, calls,
 * automation runs with a wait, top-ups; each with an Idempotency-Key), SIGKILLs every
 * process of the stack at a random moment each cycle and restarts it. After
 * the last restart it retries the requests the kills cut short (same key),
 * then runs the sweeps with the clock moved forward (as the tests do: the
 * receipt timeout is 72 h) and checks the invariants below. Prints a table;
 * exits 1 on any violation.
 */

const { values } = parseArgs({
  options: {
    cycles: { type: "string", default: "5" },
    seed: { type: "string" },
    keep: { type: "boolean", default: false },
    "load-seconds": { type: "string", default: "6" },
    "real-time": { type: "boolean", default: false },
    "recovery-minutes": { type: "string", default: "10" },
  },
});
/**
 * `--real-time`: no clock is moved and no sweep is run by hand: after the last restart the stack's own schedules,
 * queues and timeouts must bring every acknowledged item to its final state, and the run reports how long that took.
 * The load leaves out the scenarios whose end is the product's own timeout (a message without a receipt waits 72 h,
 * a silent call its deadline), which say nothing about recovery.
 */
const realTime = values["real-time"];
const recoveryMinutes = Number(values["recovery-minutes"]);
if (!(recoveryMinutes > 0))
  throw new Error(`--recovery-minutes must be a positive number, not ${values["recovery-minutes"]}`);

const FINAL_RUN = new Set(["Succeeded", "Failed", "Skipped", "Canceled"]);
/** Simulator scenarios (docs/provider-simulator.md): delivered, failed, undelivered, transient then delivered, always transient, slow, no receipt, filtered. */
const MESSAGE_SCENARIOS = realTime
  ? ["00", "01", "02", "03", "04", "05", "11"]
  : ["00", "01", "02", "03", "04", "05", "08", "11"];
/** Answered, busy, no answer, failed, long, silent (no callback ever). */
const CALL_SCENARIOS = realTime ? ["20", "21", "22", "23", "24"] : ["20", "21", "22", "23", "24", "28"];

interface Org {
  organizationId: string;
  apiKey: string;
  source: { sourceId: string; apiKey: string };
  automationId: string;
  leadId: string;
  /** Leads of a source that requires verified consent: one with a consent record, one without (its automated sends are refused). */
  requireLeads: string[];
  /** The agents its routing rule shares leads between, each with a small daily cap (the rest are flagged, unassigned). */
  agents: { userId: string; dailyCap: number }[];
}

type Kind = "lead" | "message" | "call" | "run" | "topUp";
interface Acknowledged {
  kind: Kind;
  org: Org;
  id: string;
  automationId?: string;
}
interface Attempt {
  kind: Kind;
  org: Org;
  method: string;
  path: string;
  body?: unknown;
  headers: Record<string, string>;
  /** What only this request's lead, message or call carries (its phone, body, metadata), to count what it created. */
  mark?: string;
}

const cycles = Number(values.cycles);
const seed = Number(values.seed ?? Date.now() % 100_000);
const random = seededRandom(seed);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (line: string) => console.log(`[chaos] ${line}`);

let baseUrl = "";
/** Items ended Failed with ProcessingError (poison hook or republish limit), reported with the table. */
let poisoned = 0;
const acknowledged: Acknowledged[] = [];
const cutShort: Attempt[] = [];
/** Every keyed request sent (answered or cut short), to check that none created its lead, message or call twice. */
const keyed: Attempt[] = [];

async function main(): Promise<void> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  applyShortWaits();
  const stateDir = await mkdtemp(join(tmpdir(), "chaos-"));
  const ports = { http: await freePort(), dynamodb: await freePort(), sqs: await freePort() };
  log(`seed ${seed}, ${cycles} kill cycle(s), state ${stateDir}`);
  const started = Date.now();
  let stack = await startStack(stateDir, ports);
  try {
    // The second sends through a number paced in lanes (50 MPS: 5 lanes, core/messaging/pacing.ts), the first through a
    // long code, so a kill lands in either pacer.
    const orgs = [await setUpOrganization(), await setUpOrganization({ messagesPerSecond: 50 })];
    let lastKillAt = 0;
    for (let cycle = 1; cycle <= cycles; cycle++) {
      const killAfterMs = 1_000 + random() * Number(values["load-seconds"]) * 1_000;
      const load = drive(orgs, killAfterMs + 2_000);
      await sleep(killAfterMs);
      const killed = killStack(stateDir);
      lastKillAt = Date.now();
      log(`cycle ${cycle}: SIGKILL after ${Math.round(killAfterMs)} ms (${killed} processes)`);
      await load;
      stack = await startStack(stateDir, ports);
    }
    const lastRestart = Date.now();
    // In-flight claims of killed requests expire with the function timeout: retry them once it has passed.
    await sleep(Math.max(0, lastRestart + maxRequestMs + 1_000 - Date.now()));
    const stillLocked = await retryCutShort();
    if (!realTime) await awaitPacingSlots(orgs);
    const rounds = realTime ? await recoverOnRealTime(orgs, lastRestart) : await recover(orgs, lastKillAt);
    const rows = await checkInvariants(orgs, stillLocked);
    const boundSeconds = Math.round((Date.now() - lastRestart) / 1000);
    print(rows, { boundSeconds, rounds, totalSeconds: Math.round((Date.now() - started) / 1000) });
    process.exitCode = rows.some((row) => row.violations > 0) ? 1 : 0;
  } finally {
    killStack(stateDir);
    stack.child.stdout?.destroy();
    if (!values.keep) await rm(stateDir, { recursive: true, force: true });
  }
}

/** Starts the stack in its own process and applies its environment here (the sweeps and checks run in this process). */
async function startStack(
  stateDir: string,
  ports: { http: number; dynamodb: number; sqs: number },
): Promise<{ child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "bench/chaos-stack.ts",
      "--state-dir",
      stateDir,
      "--port",
      String(ports.http),
      "--dynamodb-port",
      String(ports.dynamodb),
      "--sqs-port",
      String(ports.sqs),
    ],
    { cwd: projectRoot, stdio: ["ignore", "pipe", "inherit"], detached: true },
  );
  await new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`the stack did not start: ${output}`)), 120_000);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /READY (\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        baseUrl = ready[1]!;
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`the stack exited (${code}): ${output}`)));
  });
  child.removeAllListeners("exit");
  const state = await readJson<StackState>(stackStatePath(stateDir));
  Object.assign(process.env, state!.env);
  await waitFor(async () => (await fetch(`${baseUrl}/openapi.json`)).status < 500, 30_000, "the API");
  return { child };
}

/** SIGKILL to every process of the stack: the Node process and the DynamoDB Local JVM (and its shell), found by their state folder. */
function killStack(stateDir: string): number {
  let killed = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let commandLine = "";
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue;
    }
    if (!commandLine.includes(stateDir)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      killed++;
    } catch {
      // already gone
    }
  }
  return killed;
}

async function api(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text && /json/.test(response.headers.get("content-type") ?? "") ? JSON.parse(text) : text,
  };
}

async function setUpOrganization(number: { messagesPerSecond?: number } = {}): Promise<Org> {
  const { organization, apiKey } = await Organizations.create({ name: `Chaos ${randomUUID().slice(0, 8)}` });
  await turnQuietHoursOff(organization.id);
  const must = async (method: string, path: string, body: unknown) => {
    const response = await api(method, path, { token: apiKey, body, headers: { "idempotency-key": randomUUID() } });
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };
  await must("POST", "/phone-numbers", {
    phoneNumber: `+1212${200 + Math.floor(random() * 700)}${String(Math.floor(random() * 10_000)).padStart(4, "0")}`,
    capabilities: ["sms", "mms", "voice"],
    ...number,
  });
  // Money enters through a payment or an operator credit; the payment simulator restarts with each kill, so the operator credits it.
  await Billing.adjust(organization.id, "500.00", "Chaos run funding");
  const source = await must("POST", "/sources", { name: "Chaos seller" });
  // Routing runs for every processed lead: round robin over two agents with daily caps small enough that later leads
  // are deliberately left unassigned (needsAttention), so a kill can land in either path.
  const agents = await Promise.all(
    [2, 3].map(async (dailyCap, index) => {
      const user = await Users.add(organization.id, {
        email: `chaos-agent-${index}-${randomUUID()}@example.com`,
        name: `Chaos agent ${index + 1}`,
        role: "agent",
      });
      return { userId: user.id, dailyCap };
    }),
  );
  await must("PUT", "/routing/settings", {
    rules: [{ id: "chaos", pool: agents.map((agent) => agent.userId) }],
    agents,
  });
  const automation = await must("POST", "/automations", {
    name: "Chaos welcome",
    enabled: false,
    triggers: [{ id: "t", type: "Manual" }],
    actions: [
      { id: "pause", type: "Wait", settings: { durationSeconds: 5 } },
      { id: "hello", type: "SendSms", settings: { body: "Welcome from the chaos run" } },
    ],
    connections: [
      { id: "c0", sourceNodeId: "t", targetNodeId: "pause" },
      { id: "c1", sourceNodeId: "pause", targetNodeId: "hello" },
    ],
  });
  const lead = await must("POST", "/leads", { contact: { firstName: "Chaos", phone: { number: uniquePhone() } } });
  const requireSource = await must("POST", "/sources", {
    name: "Chaos seller (consent required)",
    consentPolicy: "require",
  });
  const requireLeads: string[] = [];
  for (const name of ["Consented", "Unconsented"]) {
    const intake = await api("POST", "/leads/intake", {
      body: { FirstName: name, Phone: uniquePhone() },
      headers: { "x-source-id": requireSource.sourceId, "x-source-key": requireSource.apiKey },
    });
    if (intake.status !== 201) throw new Error(`intake: ${intake.status} ${JSON.stringify(intake.body)}`);
    requireLeads.push(intake.body.id);
  }
  await must("POST", `/leads/${requireLeads[0]}/consent`, {
    capturedAt: new Date().toISOString(),
    channel: "Phone",
    consentLanguage: "The chaos lead agreed to be texted and called, including by automated means.",
  });
  const org: Org = {
    organizationId: organization.id,
    apiKey,
    source: { sourceId: source.sourceId, apiKey: source.apiKey },
    automationId: automation.id,
    leadId: lead.id,
    requireLeads,
    agents,
  };
  for (const id of [lead.id, ...requireLeads]) acknowledged.push({ kind: "lead", org, id });
  return org;
}

function uniquePhone(): string {
  return `+1201${200 + Math.floor(random() * 700)}${String(Math.floor(random() * 10_000)).padStart(4, "0")}`;
}

/** One random request of the mixed load. */
function nextAttempt(org: Org): Attempt {
  const idempotencyKey = randomUUID();
  const key = { "idempotency-key": idempotencyKey };
  const auth = { authorization: `Bearer ${org.apiKey}` };
  const choice = random();
  const phone = uniquePhone();
  if (choice < 0.12)
    return {
      kind: "lead",
      org,
      method: "POST",
      path: "/leads",
      body: { contact: { firstName: "Dana", phone: { number: phone } } },
      headers: { ...auth, ...key },
      mark: phone,
    };
  if (choice < 0.24) {
    return {
      kind: "lead",
      org,
      method: "POST",
      path: "/leads/intake",
      body: { FirstName: "Sam", Phone: phone },
      headers: { "x-source-id": org.source.sourceId, "x-source-key": org.source.apiKey, ...key },
      mark: phone,
    };
  }
  if (choice < 0.34) {
    const query = new URLSearchParams({
      sourceId: org.source.sourceId,
      apiKey: org.source.apiKey,
      FirstName: "Lee",
      Phone: phone,
    });
    return { kind: "lead", org, method: "GET", path: `/leads/intake?${query}`, headers: key, mark: phone };
  }
  if (choice < 0.56) {
    const body = `chaos ${idempotencyKey}`;
    return {
      kind: "message",
      org,
      method: "POST",
      path: "/messages",
      body: { to: `+1212555${"01"}${pick(MESSAGE_SCENARIOS)}`, body },
      headers: { ...auth, ...key },
      mark: body,
    };
  }
  if (choice < 0.64) {
    // Automated sends to leads of a source that requires consent: accepted for the consented one, a 422 for the other.
    const body = `chaos (consent required) ${idempotencyKey}`;
    return {
      kind: "message",
      org,
      method: "POST",
      path: "/messages",
      body: { leadId: pick(org.requireLeads), body },
      headers: { ...auth, ...key },
      mark: body,
    };
  }
  if (choice < 0.8) {
    return {
      kind: "call",
      org,
      method: "POST",
      path: "/calls",
      body: { to: `+1212555${"01"}${pick(CALL_SCENARIOS)}`, metadata: { attempt: idempotencyKey } },
      headers: { ...auth, ...key },
      mark: idempotencyKey,
    };
  }
  if (choice < 0.92)
    return {
      kind: "run",
      org,
      method: "POST",
      path: `/automations/${org.automationId}/runs`,
      body: { leadId: org.leadId },
      headers: { ...auth, ...key },
    };
  return {
    kind: "topUp",
    org,
    method: "POST",
    path: "/billing/wallet/top-ups",
    body: { amount: "1.00" },
    headers: { ...auth, ...key },
  };
}

/** Sends attempts, 8 at a time, for `durationMs`; records what was acknowledged (2xx) and what a kill cut short. */
async function drive(orgs: Org[], durationMs: number): Promise<void> {
  const deadline = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < deadline) {
        const attempt = nextAttempt(pick(orgs));
        keyed.push(attempt);
        try {
          const response = await send(attempt);
          record(attempt, response);
        } catch {
          cutShort.push(attempt);
          await sleep(200);
        }
      }
    }),
  );
}

async function send(attempt: Attempt) {
  return api(attempt.method, attempt.path, { body: attempt.body, headers: attempt.headers });
}

function record(attempt: Attempt, response: { status: number; body: any }): void {
  if (response.status >= 300) return;
  const id = response.body.id;
  if (id)
    acknowledged.push({
      kind: attempt.kind,
      org: attempt.org,
      id,
      ...(attempt.kind === "run" ? { automationId: attempt.org.automationId } : {}),
    });
}

/** Retries every request a kill cut short, with its key and payload: none may still be locked (409). */
async function retryCutShort(): Promise<number> {
  let locked = 0;
  for (const attempt of cutShort) {
    const response = await send(attempt).catch(() => ({ status: 0, body: undefined }));
    if (response.status === 409 && attempt.headers["idempotency-key"]) locked++;
    record(attempt, response);
  }
  log(`retried ${cutShort.length} request(s) cut short by a kill; ${locked} still locked`);
  return locked;
}

/**
 * Runs the sweeps with the clock moved forward until every acknowledged item is
 * final. A run step claimed just before the kill keeps its lease for LEASE_MS of
 * real time (the consumer reads the real clock, which the moved clock of the
 * sweeps cannot shorten), so rounds go on until that lease has surely passed:
 * at least 6 rounds and LEASE_MS + 60 s. After that they go on while what is
 * pending still changes (a backlog of one number's sends drains at its pace, a
 * message at a time per conversation), and stop once it has not changed for
 * three rounds or `--recovery-minutes` have passed: an item still pending then
 * is stuck, and the invariants say so.
 */
async function recover(orgs: Org[], lastKillAt: number): Promise<number> {
  const leasesPassAt = Date.now() + LEASE_MS + 60_000;
  const giveUpAt = Date.now() + recoveryMinutes * 60_000;
  let round = 0;
  let previous = "";
  let unchangedRounds = 0;
  for (;;) {
    round += 1;
    const now = Date.now();
    for (const org of orgs) {
      const organizationId = org.organizationId;
      await LeadProcessing.sweep(now + round * 10 * 60_000, organizationId);
      await awaitLiveHandOffs(org, lastKillAt);
      await sweepDueMessages({ now: new Date(now + 73 * 3_600_000 + round * 10 * 60_000), organizationId });
      await sweepDueCalls({ now: new Date(now + 6 * 3_600_000 + round * 10 * 60_000), organizationId });
      await sweepAutomations({ now: new Date(now + 3_600_000 + round * 10 * 60_000), organizationId });
      await sweepHolds({ now: new Date(now + 80 * 3_600_000 + round * 10 * 60_000), organizationId });
    }
    await sleep(8_000);
    const states = await snapshot(orgs);
    const pending = states.flatMap((state) => notFinal(state).map((entry) => describePending(state, entry)));
    log(`recovery round ${round}: ${pending.length} acknowledged item(s) not final yet`);
    // The last few, with what they wait for: an item still pending at the end is then explained by the run's own log.
    if (pending.length <= 5) for (const line of pending) log(`  ${line}`);
    if (pending.length === 0) return round;
    const state = pending.join("\n");
    unchangedRounds = state === previous ? unchangedRounds + 1 : 0;
    previous = state;
    if (round >= 6 && Date.now() >= leasesPassAt && (unchangedRounds >= 3 || Date.now() >= giveUpAt)) return round;
  }
}

/**
 * Waits (at most 30 s) until no message of `org` is in a live hand-off: claimed (Sending) after the last kill and
 * still without the carrier's id. To the messages' sweep, whose clock is hours ahead, every claim's hand-off lease
 * (HANDOFF_LEASE_MS, real time in production) has passed: a send still waiting for its hand-over time or for the
 * carrier's answer would be taken for one cut short, asked about before the carrier lists it, and queued again (its
 * idempotency key keeps the carrier from sending it twice), so it would go round once more. Only a consumer that is
 * gone outlives the lease in production: here, a claim from before the last kill.
 */
async function awaitLiveHandOffs(org: Org, lastKillAt: number): Promise<void> {
  const giveUpAt = Date.now() + 30_000;
  for (;;) {
    const [state] = await snapshot([org]);
    const live = [...state!.items.values()].some(
      (item) =>
        item.entity === "Message" &&
        item.status === "Sending" &&
        !item.providerMessageId &&
        Date.parse(item.sendingStartedAt ?? item.createdAt) >= lastKillAt,
    );
    if (!live) return;
    if (Date.now() >= giveUpAt) {
      // Not a violation by itself (the sweep recovers it, as a cut-short hand-off), but worth reading in the run's log.
      log(`a hand-off claimed after the last kill still has no carrier id after 30 s; sweeping anyway`);
      return;
    }
    await sleep(500);
  }
}

/**
 * Waits, in real time, until every message waiting for its number's pacing slot has had it (at most
 * `--recovery-minutes`). Its queue message is delayed to the slot in real time, and its dispatch deadline is the slot
 * plus the grace: to the sweeps of `recover`, whose clock is hours ahead, it would look overdue, be republished
 * (reserving a later slot each time) and, past its republish limit, end Failed (ProcessingError) though nothing went
 * wrong. In production the sweep's clock is the real one, so no such message is ever overdue.
 */
async function awaitPacingSlots(orgs: Org[]): Promise<void> {
  const giveUpAt = Date.now() + recoveryMinutes * 60_000;
  for (;;) {
    const slots = (await snapshot(orgs)).flatMap(({ items }) =>
      [...items.values()]
        // One waiting behind its conversation's earlier message (which may itself need the sweep) waits for no slot.
        .filter(
          (item) =>
            item.entity === "Message" && item.status === "Queued" && item.dueKind === "Dispatch" && !item.waitingBehind,
        )
        .map((item) => Date.parse(String(item.gsi3sk).split("#")[0]!) - DISPATCH_GRACE_MS)
        .filter((slot) => slot > Date.now()),
    );
    if (slots.length === 0 || Date.now() >= giveUpAt) return;
    const latest = Math.max(...slots);
    log(
      `${slots.length} message(s) wait for their pacing slot, the last ${Math.round((latest - Date.now()) / 1000)} s from now`,
    );
    await sleep(Math.min(10_000, Math.max(1_000, latest - Date.now() + 1_000)));
  }
}

/**
 * Real-time recovery: nothing is swept by hand and no clock moves; polls until every acknowledged item is final (the
 * stack's schedules and queues did it) or `--recovery-minutes` have passed since the last restart. Answers the polls.
 */
async function recoverOnRealTime(orgs: Org[], lastRestart: number): Promise<number> {
  const giveUpAt = lastRestart + recoveryMinutes * 60_000;
  let polls = 0;
  for (;;) {
    polls += 1;
    const waiting = (await snapshot(orgs)).flatMap((state) => notFinal(state));
    const elapsed = Math.round((Date.now() - lastRestart) / 1000);
    log(
      `${elapsed} s after the last restart: ${waiting.length} acknowledged item(s) not final yet${waiting[0] ? ` (e.g. ${waiting[0].kind} ${waiting[0].id})` : ""}`,
    );
    if (waiting.length === 0 || Date.now() >= giveUpAt) return polls;
    await sleep(10_000);
  }
}

interface OrgState {
  org: Org;
  items: Map<string, Record<string, any>>;
}

/**
 * Every item of each organization: its own partition and the partitions of its items keyed apart (`ORG#<id>#<sk>`,
 * issue 27: leads, events, claims, messages, runs, holds…), by sort key (which each kept), from one consistent scan
 * of the table.
 */
async function snapshot(orgs: Org[]): Promise<OrgState[]> {
  const states = orgs.map((org) => ({ org, items: new Map<string, Record<string, any>>() }));
  const byPartition = new Map(states.map((state) => [`ORG#${state.org.organizationId}`, state]));
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey, ConsistentRead: true }));
    for (const item of page.Items ?? []) {
      const [, organizationId] = String(item.pk).split("#");
      // A message's longer fields are stored under short names (core/messaging/store.ts), a run's packed
      // (core/automations/runs/store.ts): read them back by their names.
      byPartition
        .get(`ORG#${organizationId}`)
        ?.items.set(
          String(item.sk),
          item.entity === "Message"
            ? { ...item, ...toMessage(item) }
            : item.entity === "AutomationRun"
              ? { ...item, ...toStoredRun(item) }
              : item,
        );
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return states;
}

function itemOf(state: OrgState, entry: Acknowledged): Record<string, any> | undefined {
  const sk = {
    lead: `LEAD#${entry.id}`,
    message: `MESSAGE#${entry.id}`,
    call: `CALL#${entry.id}`,
    run: `RUN#${entry.automationId}#${entry.id}`,
    topUp: `TOPUP#${entry.id}`,
  }[entry.kind];
  return state.items.get(sk);
}

function isFinal(entry: Acknowledged, item: Record<string, any>): boolean {
  switch (entry.kind) {
    case "lead":
      return item.processingStatus !== "Pending";
    case "message":
      return messageLifecycle.isFinal(item.status) || item.status === "Unknown";
    case "call":
      return callLifecycle.isFinal(item.status);
    case "run":
      return FINAL_RUN.has(item.status);
    case "topUp":
      return true;
  }
}

/** One pending item and the fields that say what it waits for (its due entry, the message it waits behind…). */
function describePending(state: OrgState, entry: Acknowledged): string {
  const item = itemOf(state, entry);
  if (!item) return `${entry.kind} ${entry.id} missing`;
  const fields = ["status", "processingStatus", "dueKind", "gsi3sk", "waitingBehind", "sweepAttempts", "retryCount"]
    .filter((name) => item[name] !== undefined)
    .map((name) => `${name}=${JSON.stringify(item[name])}`);
  const behind = item.waitingBehind ? state.items.get(`MESSAGE#${item.waitingBehind}`) : undefined;
  if (behind) fields.push(`behind.status=${behind.status}`, `behind.dueKind=${behind.dueKind}`);
  if (item.heldSlot) fields.push(`heldSlot=${JSON.stringify(item.heldSlot)}`);
  return `${entry.kind} ${entry.id}: ${fields.join(" ")}`;
}

function notFinal(state: OrgState): Acknowledged[] {
  return acknowledged
    .filter((entry) => entry.org === state.org)
    .filter((entry) => {
      const item = itemOf(state, entry);
      return !item || !isFinal(entry, item);
    });
}

interface Row {
  invariant: string;
  checked: number;
  violations: number;
  example?: string;
}

async function checkInvariants(orgs: Org[], stillLocked: number): Promise<Row[]> {
  const states = await snapshot(orgs);
  const rows: Row[] = [];
  const add = (invariant: string, checked: number, failures: string[]) =>
    rows.push({ invariant, checked, violations: failures.length, ...(failures[0] ? { example: failures[0] } : {}) });
  for (const kind of ["lead", "message", "call", "run", "topUp"] as const) {
    const entries = acknowledged.filter((entry) => entry.kind === kind);
    const failures = entries.flatMap((entry) => {
      const item = itemOf(
        states.find((state) => state.org === entry.org)!,
        entry,
      );
      if (!item) return [`${kind} ${entry.id} missing`];
      return isFinal(entry, item) ? [] : [`${kind} ${entry.id} still ${item.status ?? item.processingStatus}`];
    });
    add(
      `every acknowledged ${kind} exists${kind === "topUp" ? " (a pending or paid top-up)" : " and is final"}`,
      entries.length,
      failures,
    );
  }
  const walletFailures: string[] = [];
  const holdFailures: string[] = [];
  const doubleCharges: string[] = [];
  const carrierless: string[] = [];
  const lockedKeys: string[] = [];
  const republished: string[] = [];
  let holds = 0;
  let charges = 0;
  let claims = 0;
  let sweptItems = 0;
  for (const { org, items } of states) {
    const all = [...items.values()];
    const ledger = all.filter((item) => String(item.sk).startsWith("LEDGER#"));
    // Open holds: Reservation items (calls, and messages held before issue 27), and the holds kept on messages.
    const open = [
      ...all.filter((item) => String(item.sk).startsWith("RESERVATION#") && item.state === "Reserved"),
      ...all.flatMap((item) => {
        const hold = String(item.sk).startsWith("MESSAGE#") ? holdOnMessage(item) : undefined;
        return hold ? [hold as unknown as Record<string, unknown>] : [];
      }),
    ];
    // The wallet item and its shards (issue 27) together hold the organization's money.
    const walletParts = all.filter((item) => item.sk === "WALLET" || String(item.sk).startsWith("WALLET#SHARD#"));
    const walletSum = (field: string) => walletParts.reduce((sum, item) => sum + Number(item[field] ?? 0), 0);
    const wallet = {
      balanceUnits: walletSum("balanceUnits"),
      reservedUnits: walletSum("reservedUnits"),
      availableUnits: walletSum("availableUnits"),
    };
    const ledgerSum = ledger.reduce((sum, entry) => sum + Number(entry.amountUnits), 0);
    const heldSum = open.reduce((sum, hold) => sum + Number(hold.amountUnits), 0);
    if (wallet.balanceUnits !== ledgerSum)
      walletFailures.push(`${org.organizationId}: balance ${wallet.balanceUnits} ≠ ledger ${ledgerSum}`);
    if (wallet.reservedUnits !== heldSum)
      walletFailures.push(`${org.organizationId}: reserved ${wallet.reservedUnits} ≠ open holds ${heldSum}`);
    if (wallet.availableUnits !== wallet.balanceUnits - wallet.reservedUnits)
      walletFailures.push(`${org.organizationId}: available ≠ balance − reserved`);
    for (const hold of open) {
      holds++;
      const owner = items.get(`${hold.relatedEntityType === "Call" ? "CALL" : "MESSAGE"}#${hold.reservationId}`);
      const ownerFinal =
        owner &&
        (hold.relatedEntityType === "Call"
          ? callLifecycle.isFinal(owner.status)
          : messageLifecycle.isFinal(owner.status) || owner.status === "Unknown");
      if (!owner || ownerFinal)
        holdFailures.push(
          `hold ${hold.reservationId} open on a ${owner ? owner.status : "missing"} ${String(hold.relatedEntityType).toLowerCase()}`,
        );
    }
    const chargesByItem = new Map<string, number>();
    for (const entry of ledger.filter((item) => item.entryType === "Charge" && (item.messageId || item.callId))) {
      charges++;
      const id = entry.messageId ?? entry.callId;
      chargesByItem.set(id, (chargesByItem.get(id) ?? 0) + 1);
      const owner = items.get(entry.messageId ? `MESSAGE#${id}` : `CALL#${id}`);
      if (!owner || !(entry.messageId ? owner.providerMessageId : owner.providerId))
        carrierless.push(`${entry.messageId ? "message" : "call"} ${id} charged without a provider id`);
    }
    for (const [id, count] of chargesByItem) if (count > 1) doubleCharges.push(`${id} charged ${count} times`);
    for (const claim of all.filter((item) => item.entity === "IdempotencyRecord" && item.state === "InFlight")) {
      claims++;
      const claimedAt = (Number(claim.expiresAt) - 24 * 3600) * 1000;
      if (typeof claim.inFlightUntil !== "number" || claim.inFlightUntil - claimedAt > maxRequestMs + 1_000)
        lockedKeys.push(`${claim.sk} locked until ${claim.inFlightUntil}`);
    }
    for (const item of all.filter((candidate) => candidate.sweepAttempts !== undefined)) {
      sweptItems++;
      const limit = String(item.sk).startsWith("LEAD#") ? LEAD_SWEEP_ATTEMPTS : MESSAGE_SWEEP_ATTEMPTS;
      if (Number(item.sweepAttempts) > limit) republished.push(`${item.sk} republished ${item.sweepAttempts} times`);
    }
  }
  add("wallet balance = ledger sum, reserved = open holds (per organization)", states.length, walletFailures);
  add("no hold open on a final or missing item", holds, holdFailures);
  add("no message or call charged twice", charges, doubleCharges);
  add("no charge without the carrier's acceptance", charges, carrierless);
  add("no Idempotency-Key claim outlives the function timeout (stored)", claims, lockedKeys);
  add(
    "no request cut short by a kill still locked on retry",
    cutShort.filter((attempt) => attempt.headers["idempotency-key"]).length,
    Array.from({ length: stillLocked }, () => "409 on retry"),
  );
  add("no item republished past its attempt limit", sweptItems, republished);
  const { checked: sendsUnderRequire, failures: basisless } = consentBasisFailures(states);
  add("no message sent without a recorded consent basis where required", sendsUnderRequire, basisless);
  add(
    "one keyed request → at most one lead, message or call",
    keyed.filter((attempt) => attempt.mark).length,
    doubledByKey(states),
  );
  const { checked: keyedCreates, failures: unkeyed } = createdOutsideTheirKey(states);
  add("one keyed request → at most one top-up or manual run (each under its key's id)", keyedCreates, unkeyed);
  const { checked: routed, failures: misrouted } = routingFailures(states);
  add("every processed lead is assigned exactly once or deliberately unassigned", routed, misrouted);
  const { checked: finals, failures: eventless } = finalEventsMissing(states);
  add("every final message and call has its final event", finals, eventless);
  poisoned = states.reduce(
    (count, { items }) =>
      count +
      [...items.values()].filter((item) =>
        [item.errorCode, item.processingReason, item.error].some((reason) =>
          String(reason ?? "").startsWith("ProcessingError"),
        ),
      ).length,
    0,
  );
  return rows;
}

/**
 * Every outbound message or call (compliance replies aside) to a lead whose source requires verified consent, that
 * got as far as the carrier, must carry the consent basis it was sent under.
 */
function consentBasisFailures(states: OrgState[]): { checked: number; failures: string[] } {
  let checked = 0;
  const failures: string[] = [];
  for (const { items } of states) {
    const all = [...items.values()];
    const requireLeads = new Set(
      all.filter((item) => item.entity === "Lead" && item.consentPolicy === "require").map((item) => item.id),
    );
    for (const item of all.filter(
      (candidate) =>
        (candidate.entity === "Message" || candidate.entity === "Call") &&
        candidate.direction === "Outbound" &&
        !candidate.purpose,
    )) {
      if (!requireLeads.has(item.leadId)) continue;
      checked++;
      const reached =
        item.entity === "Message"
          ? Boolean(item.providerMessageId) ||
            ["Sending", "Sent", "Delivered", "Undelivered", "Unknown"].includes(item.status)
          : Boolean(item.providerId);
      if (reached && !item.consentBasis)
        failures.push(
          `${String(item.entity).toLowerCase()} ${item.id} to lead ${item.leadId} sent without a consent basis`,
        );
    }
  }
  return { checked, failures };
}

/** Keyed requests whose mark (a lead's phone, a message's body, a call's metadata) is on more than one stored item. */
function doubledByKey(states: OrgState[]): string[] {
  const created = new Map<string, number>();
  for (const { items } of states) {
    for (const item of items.values()) {
      const sk = String(item.sk);
      const mark = sk.startsWith("LEAD#")
        ? item.contact?.phone?.number
        : sk.startsWith("MESSAGE#")
          ? item.body
          : sk.startsWith("CALL#")
            ? item.metadata?.attempt
            : undefined;
      if (typeof mark === "string") created.set(mark, (created.get(mark) ?? 0) + 1);
    }
  }
  return keyed
    .filter((attempt) => attempt.mark && (created.get(attempt.mark) ?? 0) > 1)
    .map(
      (attempt) =>
        `${attempt.kind} of key ${attempt.headers["idempotency-key"]} stored ${created.get(attempt.mark!)} times`,
    );
}

/**
 * Top-ups and manual runs carry nothing of the request to mark them by, but each is created under the id its
 * Idempotency-Key fixed at its first claim (a top-up's id; a manual run's trigger event, `manual:<id>`). One created
 * under any other id came from a key that did not find its first resource: a second one for that key.
 */
function createdOutsideTheirKey(states: OrgState[]): { checked: number; failures: string[] } {
  let checked = 0;
  const failures: string[] = [];
  for (const { items } of states) {
    const all = [...items.values()];
    const fixed = new Set(all.filter((item) => item.entity === "IdempotencyRecord").map((item) => item.resourceId));
    for (const item of all) {
      const sk = String(item.sk);
      const id = sk.startsWith("TOPUP#")
        ? sk.slice("TOPUP#".length)
        : sk.startsWith("RUN#") && String(item.trigger?.eventId ?? "").startsWith("manual:")
          ? String(item.trigger.eventId).slice("manual:".length)
          : undefined;
      if (id === undefined) continue;
      checked++;
      if (!fixed.has(id)) failures.push(`${sk} was created under ${id}, an id no Idempotency-Key fixed`);
    }
  }
  return { checked, failures };
}

/**
 * Routing under kills: every processed lead of the organization was routed (`routedAt`), and is either assigned, with
 * exactly one `LeadAssigned` event, or flagged `needsAttention` with none; no agent got more leads than their daily
 * cap (the run stays within one day of the organization's time zone, or the check counts two days' leads as one).
 */
function routingFailures(states: OrgState[]): { checked: number; failures: string[] } {
  const failures: string[] = [];
  let checked = 0;
  for (const { org, items } of states) {
    const assignedEvents = new Map<string, number>();
    for (const item of items.values())
      if (String(item.sk).startsWith("EVENT#") && item.eventType === "LeadAssigned")
        assignedEvents.set(item.leadId, (assignedEvents.get(item.leadId) ?? 0) + 1);
    const perAgent = new Map<string, number>();
    for (const lead of items.values()) {
      if (!String(lead.sk).startsWith("LEAD#") || lead.processingStatus !== "Processed") continue;
      checked++;
      const events = assignedEvents.get(lead.id) ?? 0;
      if (!lead.routedAt) failures.push(`lead ${lead.id} processed but never routed`);
      else if (lead.assignedUserId) {
        perAgent.set(lead.assignedUserId, (perAgent.get(lead.assignedUserId) ?? 0) + 1);
        if (events !== 1) failures.push(`lead ${lead.id} assigned with ${events} LeadAssigned events`);
        if (lead.needsAttention) failures.push(`lead ${lead.id} assigned and flagged`);
      } else if (!lead.needsAttention || events !== 0)
        failures.push(
          `lead ${lead.id} unassigned, needsAttention ${lead.needsAttention}, ${events} LeadAssigned events`,
        );
    }
    for (const agent of org.agents) {
      const count = perAgent.get(agent.userId) ?? 0;
      if (count > agent.dailyCap) failures.push(`agent ${agent.userId} got ${count} leads, cap ${agent.dailyCap}`);
    }
  }
  return { checked, failures };
}

/** Final messages and calls without the event of their final status (a status written without its event). */
function finalEventsMissing(states: OrgState[]): { checked: number; failures: string[] } {
  const failures: string[] = [];
  let checked = 0;
  for (const { items } of states) {
    const recorded = new Set<string>();
    for (const item of items.values())
      if (String(item.sk).startsWith("EVENT#"))
        recorded.add(`${toEventRecord(item).relatedEntityId}#${item.eventType}`);
    for (const item of items.values()) {
      const sk = String(item.sk);
      const isMessage =
        sk.startsWith("MESSAGE#") &&
        item.direction === "Outbound" &&
        (messageLifecycle.isFinal(item.status) || item.status === "Unknown");
      const isCall = sk.startsWith("CALL#") && callLifecycle.isFinal(item.status);
      if (!isMessage && !isCall) continue;
      checked++;
      const eventType = isMessage
        ? eventTypeOfStatus[item.status as MessageStatus]
        : callEventTypes[item.status as CallStatus];
      if (!recorded.has(`${item.id}#${eventType}`))
        failures.push(`${isMessage ? "message" : "call"} ${item.id} ${item.status} without ${eventType}`);
    }
  }
  return { checked, failures };
}

function print(rows: Row[], run: { boundSeconds: number; rounds: number; totalSeconds: number }): void {
  const width = Math.max(...rows.map((row) => row.invariant.length));
  console.log("");
  console.log(`${"invariant".padEnd(width)}  checked  violations  example`);
  console.log(`${"-".repeat(width)}  -------  ----------  -------`);
  for (const row of rows)
    console.log(
      `${row.invariant.padEnd(width)}  ${String(row.checked).padStart(7)}  ${String(row.violations).padStart(10)}  ${row.example ?? ""}`,
    );
  console.log("");
  console.log(
    `seed ${seed}; ${cycles} kill cycle(s); ${acknowledged.length} acknowledged, ${cutShort.length} cut short; final within ${run.boundSeconds} s of the last restart ` +
      `(${realTime ? `real time: ${run.rounds} poll(s), no clock moved, no sweep run by hand` : `${run.rounds} sweep round(s), clock moved up to ${80 + Math.round(run.rounds / 6)} h`}); ${poisoned} item(s) ended Failed (ProcessingError); ${run.totalSeconds} s in all`,
  );
  console.log(rows.some((row) => row.violations > 0) ? "FAIL" : "PASS");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
