import { createHash, createHmac } from "node:crypto";
import * as v from "valibot";
import { wholeNumber } from "#core/shared/ids";
import { config } from "#core/config";
import { ValidationError } from "#core/errors";
import { safeEqual } from "#core/shared/secrets";

/** Default and maximum effective page size (spec 2.7 lets the server choose; docs/decisions.md). */
export const defaultPageSize = 50;
export const maxPageSize = 200;

const scalar = v.union([v.string(), v.number(), v.boolean()]);
const boundValue = v.union([v.string(), v.number()]);
// Case-insensitive as before, but as an enum the contract shows (a lower-casing transform would hide it).
const direction = v.pipe(
  v.picklist(["asc", "desc", "ASC", "DESC", "Asc", "Desc"], "direction must be 'asc' or 'desc'."),
  v.transform((value) => value.toLowerCase() as "asc" | "desc"),
);

/** The field names a resource's list lets a client sort, filter, range-filter and search by. */
export interface ListableFields {
  sort: readonly string[];
  filter: readonly string[];
  range: readonly string[];
  search: readonly string[];
}

/** A field name out of `allowed` (an enum in the contract), or any name when the caller checks it itself. */
function fieldName(allowed: readonly string[] | undefined, ability: string, resource: string) {
  if (!allowed) return v.string();
  const message = (issue: v.BaseIssue<unknown>) =>
    `'${String(issue.input)}' cannot be used to ${ability} ${resource}; use one of: ${allowed.join(", ") || "none"}.`;
  return allowed.length ? v.picklist(allowed as [string, ...string[]], message) : v.never(message);
}

/**
 * The paging query (spec 2.7, RequestDataOptions): the body of every list
 * operation. Given a resource's listable fields, each field name is an enum,
 * so a schema-valid query names only fields the list can use.
 */
/* @__NO_SIDE_EFFECTS__ */
export function pagingQuerySchema(resource?: { name: string; fields: ListableFields }) {
  const names = (ability: keyof ListableFields, verb: string) =>
    fieldName(resource?.fields[ability], verb, resource?.name ?? "");
  return v.pipe(
    v.strictObject({
      pageSize: v.nullish(v.pipe(v.number(), v.integer(), v.minValue(1, "pageSize must be at least 1."))),
      continuationToken: v.nullish(v.pipe(v.string(), v.maxLength(4096))),
      orderBy: v.nullish(
        v.pipe(
          v.array(v.strictObject({ field: names("sort", "sort"), direction: v.optional(direction, "asc") })),
          v.maxLength(5),
        ),
      ),
      includeCount: v.nullish(v.boolean()),
      search: v.nullish(v.pipe(v.string(), v.trim(), v.maxLength(200))),
      searchFields: v.nullish(v.pipe(v.array(names("search", "search")), v.maxLength(20))),
      filters: v.nullish(
        v.pipe(
          v.array(
            v.strictObject({ field: names("filter", "filter"), value: v.union([scalar, v.null(), v.array(scalar)]) }),
          ),
          v.maxLength(20),
        ),
      ),
      rangeFilters: v.nullish(
        v.pipe(
          v.array(
            v.strictObject({
              field: names("range", "range"),
              greaterThan: v.optional(boundValue),
              greaterThanOrEqual: v.optional(boundValue),
              lessThan: v.optional(boundValue),
              lessThanOrEqual: v.optional(boundValue),
            }),
          ),
          v.maxLength(20),
        ),
      ),
    }),
    v.description(
      "Rules the schema cannot express (each a 400 with the pointer): `continuationToken` is one this API issued for the same query; a `rangeFilters` bound is a date-time for a date field and a number or decimal string for an amount or count field.",
    ),
  );
}

/** The paging query with any field names (checked by the list itself, core/db/list.ts). */
export const PagingQuerySchema = pagingQuerySchema();
export type PagingQuery = v.InferOutput<typeof PagingQuerySchema>;

/** The paged result every list answers with. */
export interface Page<TItem> {
  items: TItem[];
  pageSize: number;
  totalCount: number | null;
  /** Set with totalCount: true when counting stopped at the read budget, so totalCount is a lower bound. */
  totalCountCapped?: boolean;
  continuationToken: string | null;
}

/** Documentation schema of a paged result of `item`. */
/* @__NO_SIDE_EFFECTS__ */
export function pageSchema<TItem extends v.GenericSchema>(item: TItem) {
  return v.object({
    items: v.pipe(
      v.array(item),
      v.description(
        "At most pageSize items. A filtered or searched page may hold fewer (even none) while continuationToken is set: the server reads a bounded number of items per request. Keep following continuationToken until it is null.",
      ),
    ),
    pageSize: v.pipe(wholeNumber, v.description("The effective page size.")),
    totalCount: v.pipe(
      v.nullable(wholeNumber),
      v.description(
        "The number of matching items, when includeCount was true; otherwise null. Exact when totalCountCapped is false; a lower bound when it is true.",
      ),
    ),
    totalCountCapped: v.pipe(
      v.optional(v.boolean()),
      v.description(
        "Present when includeCount was true. False: totalCount is exact. True: counting stopped at the per-request read budget (max(4 × pageSize, 500) items), so totalCount counts only the matches among the items read and the true total is at least that.",
      ),
    ),
    continuationToken: v.pipe(
      v.nullable(v.string()),
      v.description("Send it back with the same query for the next page; null only when there are no more items."),
    ),
  });
}

export function effectivePageSize(query: PagingQuery): number {
  return Math.min(query.pageSize ?? defaultPageSize, maxPageSize);
}

/**
 * Continuation tokens are `payload.signature` (base64url JSON, HMAC-SHA256 with
 * the stage's token-signing key). The payload binds the resource, the
 * organization and a hash of the query's filters, search and sort, so a forged,
 * truncated, foreign or mismatched token is refused rather than read.
 */
export interface TokenBinding {
  resource: string;
  organizationId: string;
  /** Everything that shapes the result set besides the cursor. */
  shape: unknown;
}

export function signContinuationToken(binding: TokenBinding, cursor: unknown): string {
  const payload = Buffer.from(JSON.stringify({ b: bindingHash(binding), c: cursor })).toString("base64url");
  return `${payload}.${sign(payload)}`;
}

/** The 400 of a continuation token that cannot be used for this query. */
export function invalidContinuationToken(detail: string): ValidationError {
  return new ValidationError("The continuation token is not valid for this query.", [
    { pointer: "/continuationToken", detail },
  ]);
}

export function readContinuationToken(binding: TokenBinding, token: string): unknown {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined || !safeEqual(signature, sign(payload))) {
    throw invalidContinuationToken("The token was modified or was not issued by this service.");
  }
  let decoded: { b?: unknown; c?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw invalidContinuationToken("The token cannot be read.");
  }
  if (decoded.b !== bindingHash(binding)) {
    throw invalidContinuationToken(
      "The token belongs to a different query; send the same filters, search and sort as the first page.",
    );
  }
  return decoded.c;
}

function bindingHash(binding: TokenBinding): string {
  return createHash("sha256").update(JSON.stringify(binding)).digest("base64url").slice(0, 22);
}

function sign(payload: string): string {
  return createHmac("sha256", config.tokenSigningKey).update(payload).digest("base64url");
}
