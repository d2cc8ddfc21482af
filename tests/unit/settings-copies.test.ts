import { describe, expect, it } from "vitest";
import { copyFor, everyCopy } from "#core/db/copies";
import { PriceListEntity } from "#core/db/entities/billing";
import { entities } from "#core/db/keys";
import { copyKey, settingsCopies } from "#core/db/keys/shared";
import { migrationPasses } from "#core/db/migrate-keys";

describe("copied settings (the price list and consent settings, core/db/copies.ts)", () => {
  it("a read for one id always takes the same copy, one of the four, and ids spread over every copy", () => {
    const ids = Array.from({ length: 400 }, (_, index) => `msg_${index}`);
    for (const id of ids) expect(copyFor(id)).toBe(copyFor(id));
    const taken = ids.map((id) => copyFor(id));
    expect(new Set(taken)).toEqual(new Set(everyCopy));
    expect(everyCopy).toEqual([0, 1, 2, 3]);
    expect(settingsCopies).toBe(4);
    // Spread: no copy takes more than half the reads of 400 ids (an even spread gives each ~100).
    for (const copy of everyCopy) expect(taken.filter((chosen) => chosen === copy).length).toBeLessThan(200);
    // Naming nothing: any copy, never one outside the range.
    for (let index = 0; index < 100; index++) expect(everyCopy).toContain(copyFor());
  });

  it("a stored price-list copy holds its identity, so the key derived from it is its own; a missing copy number is refused", () => {
    for (const copy of everyCopy) {
      const { Item } = PriceListEntity.put({ organizationId: "o1", copy, smsSegment: "0.0500" });
      expect(Item).toMatchObject({ pk: `ORG#o1#SETTINGS#PRICES#${copy}`, sk: "SETTINGS#PRICES", copy });
      // An update of the copy as read (its key derived from what it holds) is an update of that copy.
      expect(PriceListEntity.update(Item as never, { smsSegment: "0.0600" }).Key).toEqual({ pk: Item.pk, sk: Item.sk });
    }
    // An item without its copy's number gives no key (not `…#PRICES#undefined`).
    expect(() => PriceListEntity.update({ organizationId: "o1" } as never, { smsSegment: "0.0600" })).toThrow(
      /not a copy's number/,
    );
    expect(() => copyKey("o1", "SETTINGS#CONSENT", settingsCopies)).toThrow(/not a copy's number/);
  });

  it("migrate-keys copies the settings and moves suppression entries in a pass of its own, before holds and messages move", () => {
    const [first, ...later] = migrationPasses;
    expect([...first!].sort()).toEqual([entities.consentSettings, entities.priceList, entities.suppression].sort());
    const laterEntities = later.flat();
    expect(laterEntities).toContain(entities.reservation);
    expect(laterEntities).toContain(entities.message);
    for (const name of first!) expect(laterEntities).not.toContain(name);
  });
});
