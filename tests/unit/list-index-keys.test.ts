import { describe, expect, it } from "vitest";
import { LeadEntity, type StoredLead } from "#core/db/entities/leads";
import { decimalSortText } from "#core/db/keys";
import { compareValues } from "#core/db/list";

/** Byte order of UTF-8, as DynamoDB orders string sort keys. */
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
/** The sort key the Lead entity derives in one ordered-list pattern. */
const sortKey = (pattern: "byPrice" | "byName" | "byModified", lead: Partial<StoredLead>) =>
  LeadEntity.sortKey(pattern, { organizationId: "o", ...lead });

describe("ordered-list index keys sort as the list comparator does", () => {
  it("orders decimal prices numerically, equal values by id, missing first", () => {
    const prices = [
      null,
      "0",
      "-0",
      "0.0",
      "0.1",
      "0.10",
      "0.9",
      "1",
      "1.5",
      "10",
      "9.99",
      "100.01",
      "-1",
      "-1.5",
      "-10",
      "-0.5",
      "12.50",
      "3",
      "999999.000001",
      "-5.55",
      "-5.5",
      "-5",
    ];
    const entries = prices.map((price, index) => ({ price, id: `ID${String(index).padStart(3, "0")}` }));
    const expected = [...entries].sort((a, b) => compareValues("decimal", a.price, b.price) || (a.id < b.id ? -1 : 1));
    const byKey = [...entries].sort((a, b) =>
      byteOrder(
        sortKey("byPrice", { id: a.id, metadata: { price: a.price } as StoredLead["metadata"] }),
        sortKey("byPrice", { id: b.id, metadata: { price: b.price } as StoredLead["metadata"] }),
      ),
    );
    expect(byKey).toEqual(expected);
    expect(decimalSortText("0.10")).toBe(decimalSortText("0.1"));
    expect(decimalSortText("-0")).toBe(decimalSortText("0"));
  });

  it("orders names with a shorter prefix first, case as the comparator does, and missing names first", () => {
    const names = ["Al", "Al B", "Al-B", "al", "", "Zoë", "Zoe", "B", "Al", "Éva"];
    const entries = names.map((name, index) => ({ name, id: `ID${index}` }));
    const expected = [...entries].sort((a, b) => compareValues("string", a.name, b.name) || (a.id < b.id ? -1 : 1));
    const byKey = [...entries].sort((a, b) =>
      byteOrder(
        sortKey("byName", { id: a.id, contact: { firstName: a.name } as StoredLead["contact"] }),
        sortKey("byName", { id: b.id, contact: { firstName: b.name } as StoredLead["contact"] }),
      ),
    );
    expect(byKey).toEqual(expected);
  });

  it("orders modification times with never-modified first", () => {
    const times = [null, "2026-01-01T00:00:00.000Z", "2025-12-31T23:59:59.999Z", null, "2026-01-01T00:00:00.001Z"];
    const entries = times.map((at, index) => ({ at, id: `ID${index}` }));
    const expected = [...entries].sort((a, b) => compareValues("date", a.at, b.at) || (a.id < b.id ? -1 : 1));
    const byKey = [...entries].sort((a, b) =>
      byteOrder(
        sortKey("byModified", { id: a.id, modifiedAt: a.at }),
        sortKey("byModified", { id: b.id, modifiedAt: b.at }),
      ),
    );
    expect(byKey).toEqual(expected);
  });
});
