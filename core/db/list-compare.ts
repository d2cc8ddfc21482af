import type { FieldValue, ListField, ListResource, NormalizedQuery } from "#core/db/list";

/** How a list compares values: filters, search, the sort comparator and cursors (the rules docs/data-model.md states for lists). */

export function isComparable(kind: ListField<unknown>["kind"], value: unknown): boolean {
  if (kind === "date") return typeof value === "string" && !Number.isNaN(Date.parse(value));
  if (kind === "number")
    return (
      typeof value === "number" || (typeof value === "string" && value.trim() !== "" && !Number.isNaN(Number(value)))
    );
  if (kind === "decimal") return /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(String(value));
  return true;
}

export function matches<TItem>(resource: ListResource<TItem>, query: NormalizedQuery, item: TItem): boolean {
  for (const filter of query.filters) {
    const spec = resource.fields[filter.field]!;
    const actual = spec.get(item);
    const wanted = Array.isArray(filter.value) ? filter.value : [filter.value];
    if (!wanted.some((value) => equalValues(spec.kind, actual, value))) return false;
  }
  for (const range of query.ranges) {
    const spec = resource.fields[range.field]!;
    const actual = spec.get(item);
    if (actual === null || actual === undefined) return false;
    const cmp = (bound: unknown) => compareValues(spec.kind, actual, bound as FieldValue);
    if (range.greaterThan !== undefined && !(cmp(range.greaterThan) > 0)) return false;
    if (range.greaterThanOrEqual !== undefined && !(cmp(range.greaterThanOrEqual) >= 0)) return false;
    if (range.lessThan !== undefined && !(cmp(range.lessThan) < 0)) return false;
    if (range.lessThanOrEqual !== undefined && !(cmp(range.lessThanOrEqual) <= 0)) return false;
  }
  if (query.search) {
    const needle = query.search.toLowerCase();
    return query.searchFields.some((field) =>
      String(resource.fields[field]!.get(item) ?? "")
        .toLowerCase()
        .includes(needle),
    );
  }
  return true;
}

export function equalValues(kind: ListField<unknown>["kind"], actual: FieldValue, wanted: unknown): boolean {
  if (wanted === null) return actual === null || actual === undefined;
  if (actual === null || actual === undefined) return false;
  if (kind === "string") return String(actual).toLowerCase() === String(wanted).toLowerCase();
  return compareValues(kind, actual, wanted as FieldValue) === 0;
}

/** Total order on field values; missing values sort first. */
export function compareValues(kind: ListField<unknown>["kind"], a: FieldValue, b: FieldValue): number {
  const aMissing = a === null || a === undefined;
  const bMissing = b === null || b === undefined;
  if (aMissing || bMissing) return aMissing === bMissing ? 0 : aMissing ? -1 : 1;
  switch (kind) {
    case "number":
      return Math.sign(Number(a) - Number(b));
    case "decimal":
      return compareDecimalStrings(String(a), String(b));
    case "date":
      return Math.sign(Date.parse(String(a)) - Date.parse(String(b)));
    case "boolean":
      return Number(a) - Number(b);
    default:
      return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  }
}

/** Exact comparison of decimal strings (no binary floating point). */
export function compareDecimalStrings(a: string, b: string): number {
  const scale = Math.max(fractionLength(a), fractionLength(b));
  const diff = scaled(a, scale) - scaled(b, scale);
  return diff === 0n ? 0 : diff < 0n ? -1 : 1;
}
export const fractionLength = (value: string) => value.split(".")[1]?.length ?? 0;
export function scaled(value: string, scale: number): bigint {
  const negative = value.startsWith("-");
  const [whole = "0", fraction = ""] = value.replace("-", "").split(".");
  const magnitude = BigInt(whole + fraction.padEnd(scale, "0"));
  return negative ? -magnitude : magnitude;
}

export function comparator<TItem>(resource: ListResource<TItem>, order: NormalizedQuery["order"]) {
  return (a: TItem, b: TItem) => {
    for (const { field, direction } of order) {
      const spec = resource.fields[field]!;
      const result = compareValues(spec.kind, spec.get(a), spec.get(b));
      if (result !== 0) return direction === "asc" ? result : -result;
    }
    // The id breaks ties so the order (and therefore the cursor) is total.
    const tie = resource.idOf(a) < resource.idOf(b) ? -1 : resource.idOf(a) > resource.idOf(b) ? 1 : 0;
    return order[0]?.direction === "desc" ? -tie : tie;
  };
}

export function cursorOf<TItem>(
  resource: ListResource<TItem>,
  order: NormalizedQuery["order"],
  item: TItem,
): FieldValue[] {
  return [...order.map(({ field }) => resource.fields[field]!.get(item) ?? null), resource.idOf(item)];
}

export function compareToCursor<TItem>(
  resource: ListResource<TItem>,
  order: NormalizedQuery["order"],
  item: TItem,
  cursor: FieldValue[],
): number {
  for (const [index, { field, direction }] of order.entries()) {
    const spec = resource.fields[field]!;
    const result = compareValues(spec.kind, spec.get(item), cursor[index]);
    if (result !== 0) return direction === "asc" ? result : -result;
  }
  const id = resource.idOf(item);
  const cursorId = String(cursor[order.length]);
  const tie = id < cursorId ? -1 : id > cursorId ? 1 : 0;
  return order[0]?.direction === "desc" ? -tie : tie;
}
