import { Suppressions } from "#core/suppressions/index";
import { createdWithin } from "#core/db/keys";
import { LeadEntity } from "#core/db/entities/leads";
import { where, type Condition } from "#core/db/expression";
import { queryPages, type QueryInput } from "#core/db/query";
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
 * organization from the table, one source from gsi1) for the creation window, the other fields as filters, stopped
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
 * The creation window as a key range (the organization's leads, or one source's from its keys-only index, where the
 * other fields are checked in memory on the items read), the other fields as a filter; only the id and phone come back.
 */
function audienceQuery(organizationId: string, audience: LeadAudience, from: number, until: number): QueryInput {
  const pattern = audience.sourceId ? "bySource" : "collection";
  const composites = { organizationId, ...(audience.sourceId ? { sourceId: audience.sourceId } : {}) };
  const { lower, upper } = createdWithin(LeadEntity.sortKey(pattern, {}), from, until);
  const read = { range: { between: [lower, upper] as const }, forward: false, limit: PAGE_SIZE };
  return audience.sourceId
    ? LeadEntity.query(pattern, composites, { ...read, where: (item) => inAudience(audience, item) })
    : LeadEntity.query(pattern, composites, {
        ...read,
        filter: filterOf(audience),
        attributes: ["id", "contact.phone.number"],
      });
}

/** The non-key fields of the audience, checked on a stored lead (the same rules as `filterOf`). */
function inAudience(audience: LeadAudience, item: Record<string, unknown>): boolean {
  const metadata = (item.metadata ?? {}) as Record<string, unknown>;
  if (!audience.processingStatus.includes(item.processingStatus as never)) return false;
  for (const field of ["vertical", "product"] as const) {
    if (audience[field] !== undefined && metadata[field] !== audience[field]) return false;
  }
  return !(audience.excludeOptedOut && metadata.smsOptedOut === true);
}

/** The non-key fields as a filter DynamoDB checks (the same rules as `inAudience`). */
function filterOf(audience: LeadAudience): Condition {
  return where.all(
    where.oneOf("processingStatus", audience.processingStatus),
    ...(["vertical", "product"] as const).map((field) =>
      audience[field] === undefined ? undefined : where.equals(`metadata.${field}`, audience[field]),
    ),
    audience.excludeOptedOut ? where.not(where.equals("metadata.smsOptedOut", true)) : undefined,
  );
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
