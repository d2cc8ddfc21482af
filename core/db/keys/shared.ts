/** Helpers every key module shares: the organization prefix and the sortable index values. */

import { ulidCeiling, ulidFloor } from "#core/shared/ids";

export type Key = { pk: string; sk: string };

/**
 * Sort-key bounds (inclusive, for `BETWEEN`) of the items under `prefix` whose id is a ULID created in
 * [fromMs, toMs]: leads and events are keyed by such ids, so a creation window is a key range.
 */
export function createdWithin(prefix: string, fromMs: number, toMs: number): { lower: string; upper: string } {
  return { lower: `${prefix}${ulidFloor(fromMs)}`, upper: `${prefix}${ulidCeiling(Math.max(fromMs, toMs))}` };
}

export const org = (organizationId: string) => `ORG#${organizationId}`;

/**
 * The key of an item in a partition of its own (issue 27: no partition carries an organization's per-lead rate):
 * the organization's prefix and the item's sort key, so the key is still the organization's and one GetItem finds
 * it. `core/db/migrate-keys.ts` moves an item from the organization's partition to this key.
 */
export const ownPartition = (organizationId: string, sk: string): Key => ({ pk: `${org(organizationId)}#${sk}`, sk });

/**
 * How many copies a copied settings item has (issue 27: the price list and the consent settings, rarely written and
 * read consistently by every delivery attempt of a text, ~4 read units a lead each, more than the organization's
 * partition could carry with the rest): each copy in a partition of its own, all written in one transaction
 * (core/db/copies.ts chooses the copy a read takes).
 */
export const settingsCopies = 4;

/**
 * Copy `copy` of the organization's settings item `sk`: partition `ORG#<org>#<sk>#<copy>`, sort key `<sk>`. A copy
 * that is no copy's number (an item read back without its `copy`) is a bug, refused here rather than a key no item has.
 */
export const copyKey = (organizationId: string, sk: string, copy: number): Key => {
  if (!Number.isInteger(copy) || copy < 0 || copy >= settingsCopies)
    throw new Error(`${sk}: ${String(copy)} is not a copy's number (0 to ${settingsCopies - 1}).`);
  return { pk: `${org(organizationId)}#${sk}#${copy}`, sk };
};

/**
 * Sort keys of the ordered-list indexes (gsi4-gsi6) are `<value>\0<id>`: the
 * NUL (refused in every text field) sorts below every character, so a value
 * that is a prefix of another sorts first, and equal values fall back to the id,
 * as the list comparator does (core/db/list.ts). A missing value is the empty
 * string, first, as the comparator puts missing values first.
 */
export const ordered = (value: string, id: string) => `${value}\u0000${id}`;

/** Text values in an index key: the first 100 code points (≤ 400 bytes, well inside the 1 KB key limit). */
export const sortText = (value: string | null | undefined) => [...(value ?? "")].slice(0, 100).join("");

/**
 * A decimal string as text that sorts in numeric order: missing `0`, negative
 * `1`, zero or positive `2`; then the length of the whole part and its digits,
 * then the fraction without trailing zeros (so `0.10` and `0.1` are one value).
 * Negative values complement every digit and end in `~`, so larger magnitudes
 * sort first and `-5` after `-5.5`.
 */
export function decimalSortText(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "0";
  const text = String(value);
  const [whole = "0", fraction = ""] = text.replace("-", "").split(".");
  const digits = whole.replace(/^0+(?=\d)/, "");
  const trimmed = fraction.replace(/0+$/, "");
  const zero = /^0*$/.test(digits) && trimmed === "";
  const length = String(digits.length).padStart(3, "0");
  if (!text.startsWith("-") || zero) return `2${length}${digits}${trimmed}`;
  const complement = (part: string) => part.replace(/\d/g, (digit) => String(9 - Number(digit)));
  return `1${String(999 - digits.length).padStart(3, "0")}${complement(digits)}${complement(trimmed)}~`;
}
export type RateLimitPartition =
  | { kind: "business"; organizationId: string }
  | { kind: "intake"; organizationId: string }
  | { kind: "user"; id: string }
  | { kind: "ip"; id: string };

/** A normalised key two leads can share: phone/email within the organization, seller ids per source. */
export type LeadClaim =
  { kind: "phone" | "email"; value: string } | { kind: "sellerLeadId" | "externalId"; sourceId: string; value: string };
