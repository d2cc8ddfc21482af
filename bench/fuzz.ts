import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createGeneratorSync } from "json-schema-faker";
import { logger } from "#core/observability/index";
import * as Organizations from "#core/organizations/index";
import { seededRandom } from "#local/seeded-random";
import { turnQuietHoursOff } from "#local/organizations";
import { startLocalStack } from "#local/start";
import { contractViolations } from "#tests/helpers/contract";

/**
 * `npm run fuzz [-- --seed N --per-operation K]`: a schema-driven run over the
 * whole contract (docs/openapi.json) against the local stack. For every
 * operation it sends K requests generated from the operation's own request
 * schema (path, query and body) and K mutated ones (a required field dropped,
 * a wrong type, an unknown field, a value out of its enum or length, NUL, an
 * over-long id), with real ids of the organization's resources half of the
 * time. Each response is checked against the contract (status declared,
 * content type declared, body valid: tests/helpers/contract.ts) and classified.
 * Exits 1 on any server error, undeclared status or invalid body.
 */

type Json = Record<string, any>;
type Kind = "valid" | "mutated";

interface Outcome {
  operation: string;
  kind: Kind;
  status: number;
  violations: string[];
  detail: string;
}

const { values } = parseArgs({ options: { seed: { type: "string" }, "per-operation": { type: "string" } } });
const seed = Number(values.seed ?? 20261123);
const perOperation = Number(values["per-operation"] ?? 24);
const random = seededRandom(seed);
const document = JSON.parse(readFileSync(new URL("../docs/openapi.json", import.meta.url), "utf8")) as Json;
const faker = createGeneratorSync({
  seed,
  alwaysFakeOptionals: false,
  optionalsProbability: 0.6,
  maxItems: 3,
  maxLength: 40,
} as never);

const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

/** Inlines `#/components/...` references, so the generator sees one self-contained schema. */
function resolve(schema: unknown, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((item) => resolve(item, depth));
  if (!schema || typeof schema !== "object") return schema;
  const object = schema as Json;
  if (typeof object.$ref === "string" && object.$ref.startsWith("#/") && depth < 8) {
    const target = object.$ref
      .slice(2)
      .split("/")
      .reduce((node: Json, key: string) => node[key], document);
    return resolve(target, depth + 1);
  }
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, resolve(value, depth)]));
}

function generate(schema: unknown): unknown {
  return faker.generate(resolve(schema) as never);
}

/** One mutation of a valid value that its schema refuses. */
function mutate(value: unknown, schema: Json | undefined): { value: unknown; what: string } {
  const resolved = (schema ? resolve(schema) : {}) as Json;
  const properties = (resolved.properties ?? {}) as Json;
  const names = Object.keys(properties);
  const object = value && typeof value === "object" && !Array.isArray(value) ? { ...(value as Json) } : undefined;
  const choice = Math.floor(random() * 8);
  if (object && choice === 0 && (resolved.required ?? []).length) {
    const name = pick(resolved.required as string[]);
    delete object[name];
    return { value: object, what: `missing required ${name}` };
  }
  if (object && choice === 1) return { value: { ...object, unexpectedField: "x" }, what: "unknown field" };
  if (object && names.length && choice <= 4) {
    const name = pick(names);
    const replacement = pick<unknown>([
      { nested: true },
      [1, 2],
      -1e308,
      "x".repeat(70_000),
      "\u0000",
      "not-in-any-enum",
      true,
      "2026-13-45T99:99:99Z",
    ]);
    return { value: { ...object, [name]: replacement }, what: `${name} = ${JSON.stringify(replacement).slice(0, 30)}` };
  }
  if (choice === 5) return { value: pick<unknown>(["[1,2", "null", 42, "a string"]), what: "not an object" };
  if (choice === 6) return { value: [value], what: "wrapped in an array" };
  return {
    value: object ? { ...object, ...Object.fromEntries(names.slice(0, 1).map((name) => [name, null])) } : null,
    what: "null field",
  };
}

interface Fixtures {
  apiKey: string;
  source: { sourceId: string; apiKey: string };
  ids: Record<string, string[]>;
}

async function main(): Promise<void> {
  // The report is the output: the stack's request logs and metrics would drown it.
  logger.setLogLevel("CRITICAL");
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
  process.env.RATE_LIMIT_REQUESTS = String(1_000_000_000);
  const stateDir = await mkdtemp(join(tmpdir(), "fuzz-"));
  const stack = await startLocalStack({
    inMemory: true,
    port: 0,
    stateDir,
    provision: false,
    optimizeFor: "throughput",
    log: () => undefined,
  });
  const started = Date.now();
  try {
    const fixtures = await setUp(stack.baseUrl);
    const outcomes: Outcome[] = [];
    const operations = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      (["get", "post", "put", "delete"] as const)
        .filter((method) => (item as Json)[method])
        .map((method) => ({ path, method, operation: (item as Json)[method] as Json })),
    );
    // Deletions last, so the other operations meet the fixtures alive.
    operations.sort((a, b) => Number(a.method === "delete") - Number(b.method === "delete"));
    for (const { path, method, operation } of operations) {
      for (let index = 0; index < perOperation * 2; index++) {
        const kind: Kind = index % 2 === 0 ? "valid" : "mutated";
        outcomes.push(await fuzzOne(stack.baseUrl, fixtures, path, method, operation, kind));
      }
    }
    report(outcomes, Date.now() - started);
  } finally {
    await stack.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

async function setUp(baseUrl: string): Promise<Fixtures> {
  const { organization, apiKey } = await Organizations.create({ name: "Fuzz" });
  await turnQuietHoursOff(organization.id);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        "idempotency-key": randomUUID(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`fuzz set-up ${method} ${path}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as Json) : {};
  };
  const number = await call("POST", "/phone-numbers", {
    phoneNumber: "+12125550142",
    capabilities: ["sms", "mms", "voice"],
  });
  const source = await call("POST", "/sources", { name: "Fuzz seller" });
  const lead = await call("POST", "/leads", { contact: { firstName: "Fuzz", phone: { number: "+12015550123" } } });
  const automation = await call("POST", "/automations", {
    name: "Fuzz",
    enabled: false,
    triggers: [{ id: "t", type: "Manual" }],
    actions: [{ id: "a", type: "Wait", settings: { durationSeconds: 60 } }],
    connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "a" }],
  });
  const run = await call("POST", `/automations/${automation.id}/runs`, { leadId: lead.id });
  const message = await call("POST", "/messages", { leadId: lead.id, body: "Hello from the fuzz" });
  const placed = await call("POST", "/calls", { to: "+12015550123" });
  const endpoint = await call("POST", "/webhook-endpoints", { url: "http://127.0.0.1:9/hook" });
  await call("POST", "/suppressions", { phoneNumber: "+12015550999" });
  const topUp = await call("POST", "/billing/wallet/top-ups", { amount: "5.00" });
  return {
    apiKey,
    source: { sourceId: source.sourceId, apiKey: source.apiKey },
    ids: {
      automations: [automation.id],
      runId: [run.id],
      calls: [placed.id],
      conversations: [message.conversationId],
      leads: [lead.id],
      messages: [message.id],
      phoneNumberId: [number.id],
      sources: [source.sourceId],
      phone: ["+12015550999"],
      phoneNumber: ["+12015550123"],
      "webhook-endpoints": [endpoint.id],
      topUpId: [topUp.id],
      provider: ["simulator", "twilio", "telnyx"],
    },
  };
}

function pathValue(fixtures: Fixtures, path: string, name: string, kind: Kind, schema: Json): string {
  const resource = path.split("/")[1] ?? "";
  const known = fixtures.ids[name === "id" ? resource : name];
  if (known && random() < 0.6) return pick(known);
  if (kind === "mutated" && random() < 0.5) return pick(["x".repeat(300), "%00", "..%2F..", "%F0%9F%98%80".repeat(40)]);
  return encodeURIComponent(String(generate(schema) ?? "x"));
}

async function fuzzOne(
  baseUrl: string,
  fixtures: Fixtures,
  template: string,
  method: string,
  operation: Json,
  kind: Kind,
): Promise<Outcome> {
  const parameters = (operation.parameters ?? []) as Json[];
  let path = template;
  for (const parameter of parameters.filter((entry) => entry.in === "path")) {
    path = path.replace(`{${parameter.name}}`, pathValue(fixtures, template, parameter.name, kind, parameter.schema));
  }
  const query = new URLSearchParams();
  for (const parameter of parameters.filter((entry) => entry.in === "query")) {
    if (!parameter.required && random() < 0.4) continue;
    const value = generate(parameter.schema);
    if (value !== undefined && value !== null)
      query.set(parameter.name, typeof value === "object" ? JSON.stringify(value) : String(value));
  }
  const headers: Record<string, string> = {};
  const security = (operation.security ?? [{ bearer: [] }]) as Json[];
  if (security.some((scheme) => "bearer" in scheme)) headers.authorization = `Bearer ${fixtures.apiKey}`;
  else if (security.some((scheme) => "sourceIdHeader" in scheme))
    Object.assign(headers, { "x-source-id": fixtures.source.sourceId, "x-source-key": fixtures.source.apiKey });
  if (parameters.some((entry) => entry.name === "Idempotency-Key")) headers["idempotency-key"] = randomUUID();
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema as Json | undefined;
  let body: unknown;
  let mutation = "";
  if (bodySchema) {
    body = generate(bodySchema);
    if (kind === "mutated") ({ value: body, what: mutation } = mutate(body, bodySchema));
    headers["content-type"] = "application/json";
  }
  const label = `${method.toUpperCase()} ${template}`;
  const response = await fetch(`${baseUrl}${path}${query.size ? `?${query}` : ""}`, {
    method: method.toUpperCase(),
    headers,
    body:
      body === undefined
        ? undefined
        : typeof body === "string" && mutation === "not an object"
          ? body
          : JSON.stringify(body),
  });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  let parsed: unknown = text;
  if (/json/.test(contentType) && text) parsed = JSON.parse(text);
  const violations = contractViolations(
    method.toUpperCase(),
    path.split("?")[0]!,
    response.status,
    contentType,
    parsed,
  );
  const problem = parsed as Json;
  const detail =
    response.status === 400
      ? `${problem?.errors?.[0]?.pointer ?? ""} ${problem?.errors?.[0]?.detail ?? problem?.detail ?? ""}`.trim()
      : mutation;
  return { operation: label, kind, status: response.status, violations, detail };
}

function report(outcomes: Outcome[], elapsedMs: number): void {
  const serverErrors = outcomes.filter((outcome) => outcome.status >= 500 && outcome.status !== 502);
  const undeclared = outcomes.filter((outcome) =>
    outcome.violations.some((violation) => /not declared|undeclared/.test(violation)),
  );
  const invalidBodies = outcomes.filter((outcome) => outcome.violations.length > 0 && !undeclared.includes(outcome));
  const validRefused = outcomes.filter((outcome) => outcome.kind === "valid" && outcome.status === 400);
  const mutatedAccepted = outcomes.filter((outcome) => outcome.kind === "mutated" && outcome.status < 300);
  const byStatus = new Map<number, number>();
  for (const outcome of outcomes) byStatus.set(outcome.status, (byStatus.get(outcome.status) ?? 0) + 1);
  console.log(
    `\nfuzz: seed ${seed}, ${perOperation} valid + ${perOperation} mutated requests per operation, ${new Set(outcomes.map((o) => o.operation)).size} operations, ${outcomes.length} requests in ${(elapsedMs / 1000).toFixed(1)} s`,
  );
  console.table([
    { class: "requests", count: outcomes.length },
    { class: "server errors (5xx other than a carrier's 502)", count: serverErrors.length },
    { class: "undeclared status or content type", count: undeclared.length },
    { class: "response body not valid against its schema", count: invalidBodies.length },
    { class: "schema-valid requests refused with 400", count: validRefused.length },
    { class: "mutated requests accepted (2xx)", count: mutatedAccepted.length },
  ]);
  console.log(
    `statuses: ${[...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}×${count}`)
      .join(", ")}`,
  );
  const group = (list: Outcome[]) => {
    const groups = new Map<string, number>();
    for (const outcome of list) {
      const key = `${outcome.operation}: ${outcome.violations[0] ?? outcome.detail}`.slice(0, 220);
      groups.set(key, (groups.get(key) ?? 0) + 1);
    }
    return [...groups]
      .sort(([, a], [, b]) => b - a)
      .map(([key, count]) => `  ${count}× ${key}`)
      .join("\n");
  };
  if (serverErrors.length) console.log(`\nserver errors:\n${group(serverErrors)}`);
  if (undeclared.length) console.log(`\nundeclared:\n${group(undeclared)}`);
  if (invalidBodies.length) console.log(`\ninvalid bodies:\n${group(invalidBodies)}`);
  if (validRefused.length)
    console.log(
      `\nschema-valid requests refused (each must be a rule the schema cannot express, stated in the operation's description):\n${group(validRefused)}`,
    );
  if (mutatedAccepted.length)
    console.log(`\nmutated requests accepted (lenient, not a contract break):\n${group(mutatedAccepted)}`);
  process.exitCode = serverErrors.length || undeclared.length || invalidBodies.length ? 1 : 0;
}

await main();
