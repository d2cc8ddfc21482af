import { describe, expect, it } from "vitest";
import { inKeyOrder } from "#core/db/items";
import { WalletEntity, WalletShardEntity } from "#core/db/entities/billing";
import { WALLET_SHARDS } from "#core/billing/wallet-shards";

describe("items read together by their keys (one BatchGetItem)", () => {
  it("answers them in the order of the keys asked, whatever order DynamoDB answered in, and undefined where none is stored", () => {
    const keys = [
      { pk: "ORG#o", sk: "WALLET" },
      { pk: "ORG#o#WALLET#SHARD#0", sk: "WALLET#SHARD#0" },
      { pk: "ORG#o#WALLET#SHARD#1", sk: "WALLET#SHARD#1" },
    ];
    const found = [
      { ...keys[2], balanceUnits: 2 },
      { ...keys[0], balanceUnits: 10 },
    ];
    expect(inKeyOrder(keys, found)).toEqual([found[1], undefined, found[0]]);
    expect(inKeyOrder([], found)).toEqual([]);
  });

  it("tells keys apart by partition and sort key together (the same sort key in two partitions is two items)", () => {
    const keys = [
      { pk: "ORG#o#A", sk: "X" },
      { pk: "ORG#o#B", sk: "X" },
    ];
    expect(inKeyOrder(keys, [{ pk: "ORG#o#B", sk: "X", n: 1 }])).toEqual([undefined, { pk: "ORG#o#B", sk: "X", n: 1 }]);
  });

  it("a wallet's item and its shards are each in a partition of their own, all the organization's", () => {
    const parts = [
      WalletEntity.key({ organizationId: "o1" }),
      ...Array.from({ length: WALLET_SHARDS }, (_, shard) => WalletShardEntity.key({ organizationId: "o1", shard })),
    ];
    expect(new Set(parts.map((key) => key.pk)).size).toBe(WALLET_SHARDS + 1);
    for (const key of parts) expect(key.pk === "ORG#o1" || key.pk.startsWith("ORG#o1#")).toBe(true);
    expect(parts[1]).toEqual({ pk: "ORG#o1#WALLET#SHARD#0", sk: "WALLET#SHARD#0" });
  });
});
