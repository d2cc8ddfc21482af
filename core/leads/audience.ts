import * as Suppressions from "#core/suppressions/index";
import { createdWithin } from "#core/db/keys";
import { LeadEntity } from "#core/db/entities/leads";
import { queryPages, type Readable } from "#core/db/query";
import type { ProcessingStatus } from "#core/leads/schemas";

/** A bounded set of an organization's leads, by the lead fields of spec 2.4 (the Schedule trigger's `audience`). */
export interface LeadAudience {
  /** Leads created in the `createdWithinDays` days up to the reference time. */
  createdWithinDays: number;
  sourceId?: string;
  processingStatus: readonly ProcessingStatus[];
  vertical?: string;
  product?: string;
  /** Leave out leads that opted out of SMS or whose phone is on the suppression list. */
  excludeOptedOut: boolean;
  /** At most this many leads, newest first. */
  maxLeads: number;
}

/** Items one audience read examines at most (the key range is read newest first in pages of `PAGE_SIZE`). */
export const AUDIENCE_MAX_EXAMINED = 10_000;
const PAGE_SIZE = 500;
const DAY_MS = 86_400_000;

/**
 * The ids of the leads in `audience` as of `asOf`, newest first: one key range over the ULID sort key (the whole
 * organization's sharded creation index, or one source's) for the creation window, the other fields checked as read, stopped
 * at `maxLeads` matches or `AUDIENCE_MAX_EXAMINED` leads read. The same `asOf` reads the same leads again, so a
 * repeated firing sees the audience it saw the first time (bar leads changed in between).
 */
export async function audienceLeadIds(organizationId: string, audience: LeadAudience, asOf: string): Promise<string[]> {
  const until = Date.parse(asOf);
  const from = until - audience.createdWithinDays * DAY_MS;
  const ids: string[] = [];
  let examined = 0;
  const input = audienceQuery(organizationId, audience, from, until);
  for await (const page of queryPages(input)) {
    const suppressed = audience.excludeOptedOut ? await suppressedPhones(organizationId, page) : new Set<string>();
    for (const item of page) {
      if (ids.length >= audience.maxLeads) return ids;
      if (!suppressed.has(phoneOf(item) ?? "")) ids.push(String(item.id));
    }
    examined += PAGE_SIZE;
    if (ids.length >= audience.maxLeads || examined >= AUDIENCE_MAX_EXAMINED) break;
  }
  return ids;
}

/**
 * The creation window as a key range of the organization's leads (or one source's), read from their write-sharded
 * keys-only index newest first, the other fields checked in memory on the leads read.
 */
function audienceQuery(organizationId: string, audience: LeadAudience, from: number, until: number): Readable {
  const pattern = audience.sourceId ? "bySource" : "byCreation";
  const composites = { organizationId, ...(audience.sourceId ? { sourceId: audience.sourceId } : {}) };
  const { lower, upper } = createdWithin(LeadEntity.sortKey(pattern, {}), from, until);
  return LeadEntity.query(pattern, composites, {
    range: { between: [lower, upper] as const },
    forward: false,
    limit: PAGE_SIZE,
    where: (item) => inAudience(audience, item),
  });
}

/** The non-key fields of the audience, checked on a stored lead. */
function inAudience(audience: LeadAudience, item: Record<string, unknown>): boolean {
  const metadata = (item.metadata ?? {}) as Record<string, unknown>;
  if (!audience.processingStatus.includes(item.processingStatus as never)) return false;
  for (const field of ["vertical", "product"] as const) {
    if (audience[field] !== undefined && metadata[field] !== audience[field]) return false;
  }
  return !(audience.excludeOptedOut && metadata.smsOptedOut === true);
}

function phoneOf(item: Record<string, unknown>): string | undefined {
  const phone = (item.contact as { phone?: { number?: string } | null } | undefined)?.phone;
  return phone?.number ?? undefined;
}

/** The phones of `items` on the organization's suppression list (asked of the list, 100 numbers per read). */
async function suppressedPhones(organizationId: string, items: Record<string, unknown>[]): Promise<Set<string>> {
  return Suppressions.suppressedAmong(
    organizationId,
    items.map(phoneOf).filter((phone): phone is string => Boolean(phone)),
  );
}
