import { createHash, randomUUID } from "node:crypto";
import { inject } from "vitest";
import type { Role } from "#core/auth/actor";
import { signUserToken } from "#core/auth/local-tokens";
import * as Organizations from "#core/organizations/index";
import * as Users from "#core/users/index";
import { turnQuietHoursOff } from "#local/organizations";
import { contractViolations } from "#tests/helpers/contract";

/** Base URL of the local HTTP server started by the global setup. */
export function baseUrl(): string {
  return inject("baseUrl");
}

/** Points this worker's core modules (db(), sqs(), config) at the test stack's emulators. */
export function applyStackEnv(): void {
  Object.assign(process.env, inject("stackEnv"));
}

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON for JSON and problem+json responses, otherwise the text. */
  body: T;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer <token>`; null sends no credentials. */
  token?: string | null;
  /** Client address seen by the API (the test server trusts X-Forwarded-For). */
  sourceIp?: string;
  /**
   * Skips the contract check of the answer, for the one reason it can be broken on purpose: the test planted
   * a stored item the contract forbids (a poison message or lead) and reads it back.
   */
  contractCheck?: "skip: the test planted a corrupt item";
}

/**
 * Each credential calls from its own address, as the clients of different
 * organizations do: an unknown credential's first lookup is paid by its IP
 * (core/http/endpoint.ts), and a whole test run sharing 127.0.0.1 would
 * otherwise exhaust that one partition. Requests without credentials keep the
 * loopback address unless a test names one.
 */
function clientAddressOf(credential: string | undefined): string | undefined {
  if (!credential) return undefined;
  const digest = createHash("sha256").update(credential).digest();
  return `10.${digest[0]}.${digest[1]}.${digest[2]}`;
}

/** A small fetch wrapper: JSON bodies in, parsed bodies out. */
export async function request<T = any>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Uint8Array | undefined;
  if (typeof options.body === "string" || options.body instanceof Uint8Array) body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const url = new URL(path, baseUrl());
  const sourceIp =
    options.sourceIp ??
    clientAddressOf(options.token ?? headers["x-source-id"] ?? url.searchParams.get("sourceId") ?? undefined);
  if (sourceIp) headers["x-forwarded-for"] = sourceIp;
  const response = await fetch(url, { method, headers, body });
  const parsed = await parsedAnswer(method, url, response, !options.contractCheck);
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Parsed JSON for JSON and problem+json answers, otherwise the text; with `check`, throws unless the answer keeps docs/openapi.json. */
export async function parsedAnswer(method: string, url: URL, response: Response, check = true): Promise<any> {
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  const parsed = /\/(?:[\w.+-]+\+)?json\b/.test(type) && text !== "" ? JSON.parse(text) : text;
  const violations = check ? contractViolations(method, url.pathname, response.status, type, parsed) : [];
  if (violations.length > 0)
    throw new Error(`The response breaks docs/openapi.json:\n${violations.join("\n")}\n${text.slice(0, 2000)}`);
  return parsed;
}

/** Signs a user access token with the test stack's key (the real verification path checks it). */
export function userToken(claims: {
  organizationId: string;
  userId?: string;
  role: Role;
  name?: string;
  email?: string;
}): Promise<string> {
  const userId = claims.userId ?? `user-${randomUUID()}`;
  return signUserToken(
    { name: `Test ${claims.role}`, email: `${userId}@example.com`, ...claims, userId },
    inject("signing"),
  );
}

export interface TestOrganization {
  organizationId: string;
  /** An `sk_` key with every scope. */
  apiKey: string;
  ownerToken: string;
  adminToken: string;
  agentToken: string;
  /** The agent's token (agents were called members before). */
  memberToken: string;
  userIds: Record<Role, string>;
  /** `request` with this organization's owner token unless `token` says otherwise. */
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
}

/**
 * A fresh organization with an owner, admin and member token. Quiet hours are off unless `quietHours: "default"`:
 * the default window (08:00-21:00 in the recipient's zone) would otherwise schedule a test's sends whenever the
 * suite runs in a New York evening.
 */
export async function newOrganization(
  name = `Test organization ${randomUUID().slice(0, 8)}`,
  options: { quietHours?: "off" | "default" } = {},
): Promise<TestOrganization> {
  applyStackEnv();
  const { organization, apiKey } = await Organizations.create({ name });
  const organizationId = organization.id;
  if (options.quietHours !== "default") await turnQuietHoursOff(organizationId);
  const [owner, admin, agent] = await Promise.all(
    (["owner", "admin", "agent"] as const).map((role) =>
      Users.add(organizationId, { email: `${role}-${randomUUID()}@example.com`, name: `Test ${role}`, role }),
    ),
  );
  const userIds = { owner: owner!.id, admin: admin!.id, agent: agent!.id };
  const [ownerToken, adminToken, agentToken] = await Promise.all([
    userToken({ organizationId, userId: userIds.owner, role: "owner", email: owner!.email }),
    userToken({ organizationId, userId: userIds.admin, role: "admin", email: admin!.email }),
    userToken({ organizationId, userId: userIds.agent, role: "agent", email: agent!.email }),
  ]);
  return {
    organizationId,
    apiKey,
    ownerToken,
    adminToken,
    agentToken,
    memberToken: agentToken,
    userIds,
    request: (method, path, options = {}) =>
      request(method, path, { ...options, token: options.token === undefined ? ownerToken : options.token }),
  };
}

/**
 * Polls `GET path` until it answers 200 with a body for which `done` holds, failing after `timeoutMs` with the last
 * body (the waits for a message, a call or an automation to reach a state).
 */
export async function waitForResource(
  org: TestOrganization,
  path: string,
  done: (body: any) => boolean,
  timeoutMs: number,
  label: string,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const response = await org.request("GET", path);
    last = response.body;
    if (response.status === 200 && done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${label} did not reach the expected state; last: ${JSON.stringify(last)}`);
}
