import { BlockList, isIP } from "node:net";
import type { ConsentPolicy } from "#core/consent/basis";
import { SourceEntity } from "#core/db/entities/sources";
import { hashSecret, safeEqual } from "#core/shared/secrets";
import type { Source } from "#core/sources/index";

/**
 * What the HTTP layer needs of a source key on every lead a seller posts: apart from the `Sources` namespace, so the
 * Middy chain every handler shares does not bundle the sources' schemas, listing and audit code.
 */

/** Default phone/email duplicate window of a source's leads, in hours (docs/decisions.md). */
export const defaultDuplicateWindowHours = 24;

const sourceKeyPattern = /^lk_([0-9A-HJKMNP-TV-Z]{26})_([A-Za-z0-9_-]{32,})$/;

export type SourceKeyRefusal = "unknown" | "disabled" | "ipNotAllowed";

/**
 * Resolves `sourceId` + source key in one GetItem (the organization is part of
 * the key). A key of another source, a disabled source or a caller outside the
 * source's allowed IPs is refused.
 */
export async function resolveSourceKey(
  sourceId: string,
  apiKey: string,
  callerIp: string,
): Promise<{ ok: true; organizationId: string; source: Source } | { ok: false; reason: SourceKeyRefusal }> {
  const match = sourceKeyPattern.exec(apiKey);
  if (!match || sourceId.length === 0 || sourceId.length > 64) return { ok: false, reason: "unknown" };
  const organizationId = match[1]!;
  const keyHash = hashSecret(apiKey);
  const item = await sourceForKey(organizationId, sourceId, keyHash);
  if (!item || !acceptsKey(item, keyHash)) return { ok: false, reason: "unknown" };
  const source = toSource(item);
  if (!source.enabled) return { ok: false, reason: "disabled" };
  if (source.allowedIps?.length && !ipAllowed(source.allowedIps, callerIp))
    return { ok: false, reason: "ipNotAllowed" };
  return { ok: true, organizationId, source };
}

/**
 * Sources whose key was verified, kept in the warm instance for 5 s like resolved API keys (core/http/authenticate),
 * so a busy seller's intake skips most source reads. Hits only, keyed by the key's hash: a new or rotated key is read
 * at once; a revoked or rotated-out key, a disabled source or a changed address list may keep working for those
 * seconds on an intake instance that cached it (a change clears the entry of the instance that made it).
 */
const verifiedSourceMs = 5_000;
const verifiedSources = new Map<string, { item: Record<string, unknown>; expiresAt: number }>();
const verifiedKey = (organizationId: string, sourceId: string, keyHash: string) =>
  `${organizationId}#${sourceId}#${keyHash}`;

async function sourceForKey(organizationId: string, sourceId: string, keyHash: string) {
  const cacheKey = verifiedKey(organizationId, sourceId, keyHash);
  const cached = verifiedSources.get(cacheKey);
  if (cached && cached.expiresAt > Date.now()) return cached.item;
  const item = await readSource(organizationId, sourceId);
  if (item && acceptsKey(item, keyHash)) {
    if (verifiedSources.size >= 1000) verifiedSources.delete(verifiedSources.keys().next().value!);
    verifiedSources.set(cacheKey, { item, expiresAt: Date.now() + verifiedSourceMs });
  }
  return item;
}

/** The source's current key, or its previous one while the rotation's overlap lasts. */
function acceptsKey(item: Record<string, unknown>, keyHash: string): boolean {
  if (typeof item.keyHash === "string" && safeEqual(item.keyHash, keyHash)) return true;
  return (
    typeof item.previousKeyHash === "string" &&
    safeEqual(item.previousKeyHash, keyHash) &&
    Date.parse(String(item.previousKeyExpiresAt)) > Date.now()
  );
}

/** Drops this instance's cached verifications of a source whose key or settings changed. */
export function forgetVerifiedSource(organizationId: string, sourceId: string): void {
  for (const cacheKey of verifiedSources.keys())
    if (cacheKey.startsWith(`${organizationId}#${sourceId}#`)) verifiedSources.delete(cacheKey);
}

/** The source item as stored, or undefined. */
export async function readSource(organizationId: string, sourceId: string) {
  return SourceEntity.get({ organizationId, id: sourceId });
}

/** A stored source item as the API answers it (defaults for fields older items lack). */
export function toSource(item: Record<string, unknown>): Source {
  return {
    id: item.id as string,
    name: item.name as string,
    enabled: item.enabled as boolean,
    defaultPrice: (item.defaultPrice as string | null) ?? null,
    vertical: (item.vertical as string | null) ?? null,
    product: (item.product as string | null) ?? null,
    allowedIps: (item.allowedIps as string[] | null) ?? null,
    duplicateWindowHours: (item.duplicateWindowHours as number | undefined) ?? defaultDuplicateWindowHours,
    consentPolicy: (item.consentPolicy as ConsentPolicy | undefined) ?? "allow",
    keyPreview: item.keyPreview as string,
    keyRotatedAt: (item.keyRotatedAt as string | null) ?? null,
    keyRevokedAt: (item.keyRevokedAt as string | null) ?? null,
    previousKeyExpiresAt: (item.previousKeyExpiresAt as string | null) ?? null,
    createdAt: item.createdAt as string,
    modifiedAt: (item.modifiedAt as string | null) ?? null,
  };
}

/** `203.0.113.7`, `203.0.113.0/24`, `2001:db8::/32` → address, prefix length and family. */
export function parseIpRange(value: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | undefined {
  const [address = "", prefixText, extra] = value.split("/");
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** Whether `ip` falls within any of the allowed addresses or ranges. */
export function ipAllowed(allowed: readonly string[], ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  const list = new BlockList();
  for (const entry of allowed) {
    const range = parseIpRange(entry);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  return list.check(ip, family === 4 ? "ipv4" : "ipv6");
}
