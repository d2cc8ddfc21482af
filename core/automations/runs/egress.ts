/**
 * Outbound HTTP of automation steps (HttpRequest). Where the stage refuses private targets, every new connection
 * resolves the host itself, refuses it unless every address is public unicast, and connects only to the addresses it
 * checked: the check and the connection use one resolution, so a host that answers DNS differently the second time
 * (DNS rebinding) cannot reach loopback, the instance metadata service or the VPC. TLS SNI and Host stay the hostname.
 */
import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { Readable } from "node:stream";
import { isPublicAddress } from "#core/automations/runs/public-address";
import { environmentNames } from "#stacks/definitions";

export { isPublicAddress };

/**
 * Run engine settings from the environment (read lazily). HttpRequest targets on private, loopback and
 * link-local addresses are refused unless AUTOMATION_HTTP_ALLOW_PRIVATE is exactly `true`, which only the
 * local stack sets (local/start.ts): no other setting (such as a DynamoDB endpoint) can turn the guard off.
 */
export const runsConfig = {
  get allowPrivateHttpTargets(): boolean {
    return process.env[environmentNames.automationHttpAllowPrivate] === "true";
  },
  /** First HttpRequest retry delay; each further retry doubles it (with jitter), up to 5 minutes. */
  get retryBaseMs(): number {
    const value = Number(process.env[environmentNames.automationRetryBaseMs] ?? "");
    return Number.isInteger(value) && value > 0 ? value : 5_000;
  },
};

/** A target host that resolves to an address automations may not call. */
export class PrivateTargetError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `The host ${host} resolves to a private or loopback address (${address}); automations may only call public receivers.`,
    );
    this.name = "PrivateTargetError";
  }
}

/** Resolves a hostname to all its addresses. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** The addresses of `host` (an IP literal is its own), or PrivateTargetError when any of them is not public. */
export async function publicAddresses(host: string, resolve: Resolve = systemResolve): Promise<LookupAddress[]> {
  const family = isIP(host);
  const addresses = family ? [{ address: host, family }] : await resolve(host);
  if (addresses.length === 0)
    throw Object.assign(new Error(`The host ${host} could not be resolved.`), { code: "ENOTFOUND" });
  const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
  if (blocked) throw new PrivateTargetError(host, blocked.address);
  return addresses;
}

/** A socket lookup that refuses (and never returns) a non-public address: what it checked is what the socket connects to. */
function pinnedLookup(resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    publicAddresses(hostname, resolve).then(
      (addresses) =>
        options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family),
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
}

/** Keep-alive agents per policy: a socket opened where private targets are allowed is never reused where they are not. */
interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
}

function agentsOf(lookup?: LookupFunction): Agents {
  const options = { keepAlive: true, ...(lookup ? { lookup } : {}) };
  return { http: new HttpAgent(options), https: new HttpsAgent(options) };
}

let anyTarget: Agents | undefined;
let publicOnly: Agents | undefined;

/** What an outbound request may carry (the subset of fetch's RequestInit the callers use; redirects are never followed). */
export interface EgressInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  redirect?: "manual";
}

/**
 * fetch for HttpRequest steps (and webhook deliveries, which pass their own stage setting), answering a web Response:
 * Node's own http/https clients (no fetch library in the bundle), with a pinned lookup unless the stage allows private
 * targets. IP literals skip lookup, so they are checked here before connecting. Redirects are not followed; a timeout
 * rejects with the signal's reason (a TimeoutError), as fetch does. `resolve` replaces DNS (tests).
 */
export async function egressFetch(
  url: string,
  init: EgressInit,
  allowPrivate = runsConfig.allowPrivateHttpTargets,
  resolve?: Resolve,
): Promise<Response> {
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isIP(host) && !isPublicAddress(host)) throw new PrivateTargetError(host, host);
  const agents = allowPrivate
    ? (anyTarget ??= agentsOf())
    : resolve
      ? agentsOf(pinnedLookup(resolve))
      : (publicOnly ??= agentsOf(pinnedLookup(systemResolve)));
  const secure = target.protocol === "https:";
  const method = (init.method ?? "GET").toUpperCase();
  const answer = await new Promise<IncomingMessage>((done, fail) => {
    const request = (secure ? httpsRequest : httpRequest)(
      target,
      { method, headers: init.headers, agent: secure ? agents.https : agents.http, signal: init.signal },
      done,
    );
    request.on("error", (error) => fail(init.signal?.aborted ? init.signal.reason : error));
    request.end(init.body);
  });
  const headers = new Headers();
  for (let index = 0; index < answer.rawHeaders.length; index += 2)
    headers.append(answer.rawHeaders[index]!, answer.rawHeaders[index + 1]!);
  const status = answer.statusCode ?? 502;
  const empty = method === "HEAD" || status === 204 || status === 205 || status === 304;
  if (empty) answer.resume();
  return new Response(empty ? null : (Readable.toWeb(answer) as ReadableStream<Uint8Array>), {
    status,
    statusText: answer.statusMessage ?? "",
    headers,
  });
}

/** The PrivateTargetError behind a failed request (a connection error may carry it as `cause`), if that is why. */
export function privateTargetCause(error: unknown): PrivateTargetError | undefined {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof PrivateTargetError) return current;
  }
  return undefined;
}

/**
 * Why a URL may not be called from this stage (it resolves to a non-public address), or undefined. An early, clear
 * refusal only: what guarantees it is the connection itself (`egressFetch` connects only to addresses it checked).
 */
export async function targetRefusal(url: string): Promise<string | undefined> {
  return refusalOf(url, { unresolvable: true });
}

/** Only a private target's refusal: a host that does not resolve yet may still be saved (the run refuses it then). */
export async function privateTargetRefusal(url: string): Promise<string | undefined> {
  return refusalOf(url, { unresolvable: false });
}

async function refusalOf(url: string, refuse: { unresolvable: boolean }): Promise<string | undefined> {
  if (runsConfig.allowPrivateHttpTargets) return undefined;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  try {
    await publicAddresses(host);
    return undefined;
  } catch (error) {
    if (error instanceof PrivateTargetError) return error.message;
    return refuse.unresolvable ? `The host ${host} could not be resolved.` : undefined;
  }
}
