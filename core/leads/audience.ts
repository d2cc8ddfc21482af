import { Suppressions } from "#core/suppressions/index";
import { createdWithin, keys } from "#core/db/keys";
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
  const range = rangeOf(organizationId, audience, from, until);
  // By source, the leads come from a keys-only index and are read from the table: the filter is checked in memory there.
  const filter = range.index ? { where: (item: Record<string, unknown>) => inAudience(audience, item) } : filterOf(audience);
  const input: QueryInput = { ...range, ...filter, ExpressionAttributeValues: { ...range.ExpressionAttributeValues, ...("ExpressionAttributeValues" in filter ? filter.ExpressionAttributeValues : {}) }, ScanIndexForward: false, Limit: PAGE_SIZE };
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

function rangeOf(organizationId: string, audience: LeadAudience, from: number, until: number): QueryInput {
  if (audience.sourceId) {
    const { gsi1pk, gsi1sk: prefix } = keys.leadsBySource(organizationId, audience.sourceId);
    const { lower, upper } = createdWithin(prefix, from, until);
    const bounds = { ":from": lower, ":until": upper };
    return { index: "leadsBySource", KeyConditionExpression: "gsi1pk = :pk AND gsi1sk BETWEEN :from AND :until", ExpressionAttributeValues: { ":pk": gsi1pk, ...bounds } };
  }
  const { pk, skPrefix } = keys.leadPrefix(organizationId);
  const { lower, upper } = createdWithin(skPrefix, from, until);
  const bounds = { ":from": lower, ":until": upper };
  return { KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :until", ExpressionAttributeValues: { ":pk": pk, ...bounds } };
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

/** The non-key fields as a FilterExpression; only the id and phone come back. */
function filterOf(audience: LeadAudience): Pick<QueryInput, "FilterExpression" | "ProjectionExpression" | "ExpressionAttributeNames"> & { ExpressionAttributeValues: Record<string, unknown> } {
  const clauses: string[] = [];
  const values: Record<string, unknown> = {};
  const statuses = audience.processingStatus.map((status, index) => {
    values[`:status${index}`] = status;
    return `:status${index}`;
  });
  clauses.push(`#processingStatus IN (${statuses.join(", ")})`);
  for (const field of ["vertical", "product"] as const) {
    const value = audience[field];
    if (value === undefined) continue;
    values[`:${field}`] = value;
    clauses.push(`#metadata.#${field} = :${field}`);
  }
  if (audience.excludeOptedOut) {
    values[":optedOut"] = true;
    clauses.push("NOT (#metadata.#smsOptedOut = :optedOut)");
  }
  return {
    FilterExpression: clauses.join(" AND "),
    ProjectionExpression: "#id, #contact.#phone.#number",
    ExpressionAttributeNames: {
      "#id": "id",
      "#processingStatus": "processingStatus",
      "#metadata": "metadata",
      "#contact": "contact",
      "#phone": "phone",
      "#number": "number",
      ...(audience.vertical === undefined ? {} : { "#vertical": "vertical" }),
      ...(audience.product === undefined ? {} : { "#product": "product" }),
      ...(audience.excludeOptedOut ? { "#smsOptedOut": "smsOptedOut" } : {}),
    },
    ExpressionAttributeValues: values,
  };
}

function phoneOf(item: Record<string, unknown>): string | undefined {
  const phone = (item.contact as { phone?: { number?: string } | null } | undefined)?.phone;
  return phone?.number ?? undefined;
}

/** The phones of `items` on the organization's suppression list (asked of the list, 100 numbers per read). */
async function suppressedPhones(organizationId: string, items: Record<string, unknown>[]): Promise<Set<string>> {
  return Suppressions.suppressedAmong(organizationId, items.map(phoneOf).filter((phone): phone is string => Boolean(phone)));
}
