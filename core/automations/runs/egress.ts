/**
 * Outbound HTTP of automation steps (HttpRequest). Where the stage refuses private targets, every new connection
 * resolves the host itself, refuses it unless every address is public unicast, and connects only to the addresses it
 * checked: the check and the connection use one resolution, so a host that answers DNS differently the second time
 * (DNS rebinding) cannot reach loopback, the instance metadata service or the VPC. TLS SNI and Host stay the hostname.
 */
import type { LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import type { Agent, RequestInit, Response } from "undici";
import { isPublicAddress } from "#core/automations/runs/public-address";
import { runsConfig } from "#core/automations/runs/config";

export { isPublicAddress };

/** A target host that resolves to an address automations may not call. */
export class PrivateTargetError extends Error {
  constructor(readonly host: string, readonly address: string) {
    super(`The host ${host} resolves to a private or loopback address (${address}); automations may only call public receivers.`);
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
  if (addresses.length === 0) throw Object.assign(new Error(`The host ${host} could not be resolved.`), { code: "ENOTFOUND" });
  const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
  if (blocked) throw new PrivateTargetError(host, blocked.address);
  return addresses;
}

/**
 * An undici dispatcher that connects only to public addresses: host names through a lookup that refuses (and never
 * returns) a non-public address, IP literals (which skip lookup) checked before connecting.
 */
export async function publicOnlyDispatcher(resolve: Resolve = systemResolve): Promise<Agent> {
  const { Agent, buildConnector } = await undici();
  const pinnedLookup: LookupFunction = (hostname, options, callback) => {
    publicAddresses(hostname, resolve).then(
      (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
      (error: NodeJS.ErrnoException) => callback(error, ""),
    );
  };
  const connect = buildConnector({ lookup: pinnedLookup });
  return new Agent({
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) && !isPublicAddress(host)) return callback(new PrivateTargetError(host, host), null);
      connect(options, callback);
    },
  });
}

/**
 * undici is loaded on the first outbound request: it is half a megabyte of the
 * bundle of every function that reaches this module (automation and webhook
 * code), and only the steps that call out need it; the others' cold starts skip it.
 */
const undici = () => import("undici");

let publicOnly: Promise<Agent> | undefined;

/**
 * fetch for HttpRequest steps (and webhook deliveries, which pass their own stage setting): through the public-only
 * dispatcher unless the stage allows private targets.
 */
export async function egressFetch(url: string, init: Omit<RequestInit, "dispatcher">, allowPrivate = runsConfig.allowPrivateHttpTargets): Promise<Response> {
  const { fetch } = await undici();
  if (allowPrivate) return fetch(url, init);
  publicOnly ??= publicOnlyDispatcher();
  return fetch(url, { ...init, dispatcher: await publicOnly });
}

/** The PrivateTargetError behind a failed fetch (undici wraps connection errors as `cause`), if that is why. */
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
