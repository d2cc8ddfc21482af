import type { StoredWallet } from "#core/billing/schemas";
import { WalletEntity, WalletShardEntity } from "#core/db/entities/billing";
import type { PlannedRead } from "#core/db/items";

/**
 * Reading the wallet's items, apart from the wallet's store (wallet-store.ts) and the billing facade: a send plans
 * this read with its others (core/messaging/send-read.ts) in functions that otherwise bundle none of billing's writes.
 */

/** How many sub-balance items a wallet may spread its money over (wallet-shards.ts decides when money moves between them). */
export const WALLET_SHARDS = 8;

export interface SubBalance {
  balanceUnits: number;
  reservedUnits: number;
  availableUnits: number;
  modifiedAt?: string;
}

/** The wallet item (limits, suspension, the unallocated money) and its shards by number. */
export interface WalletParts {
  main: StoredWallet;
  shards: Map<number, SubBalance>;
}

/** The wallet item and its shards as a read others may batch with theirs (`readTogether`): undefined when never opened. */
export function walletPartsRead(organizationId: string): PlannedRead<WalletParts | undefined> {
  const shardNumbers = Array.from({ length: WALLET_SHARDS }, (_, shard) => shard);
  return {
    keys: [
      WalletEntity.key({ organizationId }),
      ...shardNumbers.map((shard) => WalletShardEntity.key({ organizationId, shard })),
    ],
    from: ([main, ...shardItems]) => {
      if (!main) return undefined;
      const shards = new Map<number, SubBalance>();
      shardItems.forEach((item, shard) => item && shards.set(shard, item as unknown as SubBalance));
      return { main: main as unknown as StoredWallet, shards };
    },
  };
}
