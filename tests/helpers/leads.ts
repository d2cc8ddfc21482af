import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";
import { parsePhone } from "#core/shared/phone";
import { request, type RequestOptions, type TestOrganization, type TestResponse } from "#tests/helpers/stack";

export interface TestSource {
  sourceId: string;
  apiKey: string;
}

/** Creates a lead source in the organization (owner token). */
export async function newSource(org: TestOrganization, body: Record<string, unknown> = {}): Promise<TestSource> {
  const response = await org.request("POST", "/sources", { body: { name: "Test source", ...body } });
  if (response.status !== 201)
    throw new Error(`source not created: ${response.status} ${JSON.stringify(response.body)}`);
  return { sourceId: response.body.sourceId, apiKey: response.body.apiKey };
}

/** `GET /leads/intake` with the source key in the query and `params` as flat parameters. */
export function intakeByQuery(
  source: TestSource,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const query = new URLSearchParams({ sourceId: source.sourceId, apiKey: source.apiKey, ...params });
  return request("GET", `/leads/intake?${query}`, { headers });
}

/** `POST /leads/intake` with the source key in the X-Source-Id / X-Source-Key headers. */
export function intakeByBody(
  source: TestSource,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  return request("POST", "/leads/intake", {
    body,
    headers: { "x-source-id": source.sourceId, "x-source-key": source.apiKey, ...headers },
  });
}

/** A random valid New Jersey number in E.164, so tests do not share contacts. */
export function uniquePhone(): string {
  for (;;) {
    const line = String(Math.floor(Math.random() * 10_000)).padStart(4, "0");
    const candidate = `+1201${200 + Math.floor(Math.random() * 700)}${line}`;
    if (parsePhone(candidate)) return candidate;
  }
}

export function uniqueEmail(): string {
  return `lead-${Math.random().toString(36).slice(2, 10)}@example.com`;
}

/** Polls `GET /leads/{id}` until the lead leaves Pending (or `until` holds), within `timeoutMs`. */
export async function waitForLead(
  org: TestOrganization,
  leadId: string,
  until: (lead: any) => boolean = (lead) => lead.processingStatus !== "Pending",
  timeoutMs = 20_000,
  options: Pick<RequestOptions, "contractCheck"> = {},
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: TestResponse | undefined;
  while (Date.now() < deadline) {
    last = await org.request("GET", `/leads/${leadId}`, { token: org.apiKey, ...options });
    if (last.status === 200 && until(last.body)) return last.body;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`lead ${leadId} did not settle: ${JSON.stringify(last?.body)}`);
}

/**
 * Stores a lead item the intake outbox does not queue: a placeholder takes its key first, so the lead arrives as a
 * change, not an insert (the outbox queues inserts). For tests that deliver its queue message themselves, or that
 * stand for a lead whose queue message was lost (the pending-lead sweep).
 */
export async function storeUnqueuedLead(item: Record<string, unknown>): Promise<void> {
  await db().send(
    new PutCommand({ TableName: tableName(), Item: { pk: item.pk, sk: item.sk, entity: "Placeholder" } }),
  );
  await db().send(new PutCommand({ TableName: tableName(), Item: item }));
}
