/**
 * Smoke test of a deployed stage: what `npm run test:deploy` cannot see (AWS accepting the resources, the packaged
 * functions running in Lambda, the queues and the stream wired) checked over HTTPS in a minute.
 *
 *   npx sst deploy --stage pr-42
 *   npx sst shell --stage pr-42 -- node --import tsx local/smoke-stage.ts
 *   npx sst remove --stage pr-42
 *
 * Under `sst shell` it finds the table (linked) and the API URL (.sst/outputs.json, or API_URL); it creates two
 * organizations with core's own code, as the operator CLI does, then talks to the API only. Exits 1 naming the
 * first check that failed. It leaves its two organizations behind (the stage is removed after).
 */
import { environmentNames, table } from "#stacks/definitions";
import { projectRoot } from "#local/paths";
import { readJson } from "#local/state";

interface Answer {
  status: number;
  type: string;
  body: any;
}

const apiUrl = process.env.API_URL ?? (await readJson<{ apiUrl?: string }>(`${projectRoot}/.sst/outputs.json`))?.apiUrl;
if (!apiUrl) throw new Error("No API URL: run after `npx sst deploy` (writes .sst/outputs.json) or set API_URL");
const linked = process.env[`SST_RESOURCE_${table.name}`];
process.env[environmentNames.tableName] ??= linked ? (JSON.parse(linked) as { name: string }).name : undefined;
if (!process.env[environmentNames.tableName])
  throw new Error("No table: run under `npx sst shell --stage NAME`, or set TABLE_NAME");
const Organizations = await import("#core/organizations/index");

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; raw?: Buffer } = {},
): Promise<Answer> {
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body !== undefined || options.raw ? { "content-type": "application/json" } : {}),
    },
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text();
  return { status: response.status, type, body: type.includes("json") && text ? JSON.parse(text) : text };
}

function check(what: string, ok: boolean, answer?: unknown): void {
  if (!ok) {
    console.error(JSON.stringify({ failed: what, answer }, null, 2));
    process.exit(1);
  }
  console.log(`✓ ${what}`);
}

const contract = await call("GET", "/openapi.json");
check("the contract is served", contract.status === 200 && typeof contract.body.openapi === "string", contract.status);

const unknown = await call("GET", `/no-such-route-${Date.now()}`);
check(
  "an unknown path is a 404 problem",
  unknown.status === 404 && unknown.type.startsWith("application/problem+json"),
  unknown,
);

const first = await Organizations.create({ name: `smoke ${new Date().toISOString()}` });
const second = await Organizations.create({ name: `smoke other ${new Date().toISOString()}` });
const created = await call("POST", "/leads", {
  token: first.apiKey,
  body: { contact: { email: `smoke-${Date.now()}@example.com` } },
});
check(
  "a lead is created (201, Pending)",
  created.status === 201 && created.body.processingStatus === "Pending",
  created,
);

const deadline = Date.now() + 60_000;
let lead = created;
while (lead.body.processingStatus === "Pending" && Date.now() < deadline) {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  lead = await call("GET", `/leads/${created.body.id}`, { token: first.apiKey });
}
check(
  "the lead is processed through the stream outbox and the intake queue",
  lead.status === 200 && lead.body.processingStatus !== "Pending",
  lead.body,
);

const foreign = await call("GET", `/leads/${created.body.id}`, { token: second.apiKey });
check("another organization cannot read it (404)", foreign.status === 404, foreign);

const tooLarge = await call("POST", "/leads", { token: first.apiKey, raw: Buffer.alloc(7 * 1024 * 1024, 0x20) });
check("a body over Lambda's 6 MB is refused with 413", tooLarge.status === 413, {
  status: tooLarge.status,
  body: tooLarge.body,
});

console.log(
  `Stage at ${apiUrl} answered every check. Next: npm run -s admin -- status --stage <stage> (no dead letters, no stuck work).`,
);
