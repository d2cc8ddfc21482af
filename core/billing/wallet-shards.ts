/**
 * Sub-balances of a busy wallet (issue 27): every send reserves and settles a hold, and with one wallet item each of
 * those is a transaction on that item, so at the scale goal (~334 a second for one organization) they cancel each
 * other. While the wallet is well funded, money moves from the wallet item into one of `WALLET_SHARDS` sub-balance
 * items in chunks, and holds are taken from (and settled on) a shard picked at random; the wallet item is written
 * once per chunk. As the balance runs low, the shards give their money back and holds come from the wallet item
 * again, exactly as before. The wallet is the sum of its items, and a move between them writes no ledger entry
 * (the organization's money does not change), so balance = ledger sum and reserved = open holds still hold.
 */
import type { StoredWallet } from "#core/billing/schemas";
import { WALLET_SHARDS, type WalletParts } from "#core/billing/wallet-read";
import { drainItems, readWalletParts, refillItems } from "#core/billing/wallet-store";
import { transact, TransactionConditionFailed } from "#core/db/transact";

// Declared beside the read of the shards (wallet-read.ts), which must not bring this module's writes with it.
export { WALLET_SHARDS };

/** A chunk moved into a shard covers at least this many holds of the size that asked for it. */
const CHUNK_HOLDS = 2;

export const randomShard = (): number => Math.floor(Math.random() * WALLET_SHARDS);

/**
 * Organizations whose wallet could not fund a shard lately, until when (this warm instance only): their holds go
 * straight to the wallet item for a while instead of first trying an empty shard (one call instead of three). A hint,
 * never a decision: the wallet item's own condition decides every hold.
 */
const lowUntil = new Map<string, number>();
const LOW_HINT_MS = 10_000;

export const runningLow = (organizationId: string): boolean => (lowUntil.get(organizationId) ?? 0) > Date.now();

export function noteRunningLow(organizationId: string): void {
  if (lowUntil.size >= 10_000) lowUntil.clear();
  lowUntil.set(organizationId, Date.now() + LOW_HINT_MS);
}

/**
 * Shards of an organization's wallet that held money for a hold of the last size asked when this warm instance last
 * read them (or that it refilled): a hold tries one of them first instead of a shard at random (which, until every
 * shard was refilled once, is often empty: a refused write, a read and a refill before the hold). A hint, never a
 * decision: the shard's own condition decides, and a refused hold reads every part again.
 */
const fundedHint = new Map<string, number[]>();

/** A shard this instance last saw funded (at random among them), if any. */
export function fundedShard(organizationId: string): number | undefined {
  const shards = fundedHint.get(organizationId);
  return shards && shards.length > 0 ? shards[Math.floor(Math.random() * shards.length)] : undefined;
}

/** Notes which shards of `parts` can cover a hold of `units` (and `refilled`, just refilled with a chunk of several). */
export function noteFundedShards(organizationId: string, parts: WalletParts, units: number, refilled?: number): void {
  if (fundedHint.size >= 10_000) fundedHint.clear();
  const funded = [...parts.shards]
    .filter(([, shard]) => shard.availableUnits >= Math.max(units, 1))
    .map(([number]) => number);
  fundedHint.set(organizationId, refilled === undefined || funded.includes(refilled) ? funded : [...funded, refilled]);
}

/**
 * The wallet item's money never moves into shards below this line: the floor, or the low-balance threshold when
 * higher, so the wallet item crosses the threshold (and its `WalletLowBalance` event fires from the stream) only
 * once the shards have given their money back and the wallet item holds it all again.
 */
const keptOnWallet = (main: StoredWallet, floorUnits: number) =>
  Math.max(floorUnits, Number(main.lowBalanceThresholdUnits ?? 0));

/**
 * Moves a chunk of the wallet item's money into `shard` so it can cover holds of `units`: a 2·N-th of what the
 * wallet item has above its line, and only when that chunk covers `CHUNK_HOLDS` such holds (a well-funded wallet).
 * The condition asks the stored wallet item for at least half of what the chunk was computed from, so refills and
 * holds racing this one do not refuse it, while a stale read never moves money out of a wallet that has since run
 * low; a refused refill is recomputed from a fresh read. "unfunded": the wallet is not funded well enough (or is
 * suspended); "contended": it kept changing under three attempts.
 */
/**
 * The chunk a refill of a shard for holds of `units` moves from the wallet item as `main` was read, and the least the
 * stored wallet item must still have for it (half of what the chunk was computed from); undefined when the wallet is
 * not funded well enough for it (or is suspended).
 */
export function refillChunk(
  main: StoredWallet,
  units: number,
  floorUnits: number,
): { chunk: number; funded: number } | undefined {
  const line = keptOnWallet(main, floorUnits);
  const chunk = Math.floor((main.availableUnits - line) / (2 * WALLET_SHARDS));
  if (main.suspendedAt || chunk <= 0 || chunk < CHUNK_HOLDS * Math.max(units, 1)) return undefined;
  return { chunk, funded: line + WALLET_SHARDS * chunk };
}

export async function refillShard(
  organizationId: string,
  parts: WalletParts,
  shard: number,
  units: number,
  floorUnits: number,
): Promise<"refilled" | "unfunded" | "contended"> {
  let main = parts.main;
  for (let attempt = 0; attempt < 3; attempt++) {
    const refill = refillChunk(main, units, floorUnits);
    if (!refill) return "unfunded";
    try {
      await transact(refillItems(organizationId, shard, refill.chunk, refill.funded));
      return "refilled";
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
    }
    main = (await readWalletParts(organizationId))?.main ?? main;
  }
  return "contended";
}

export const shardsHoldMoney = ({ shards }: WalletParts): boolean =>
  [...shards.values()].some((shard) => shard.availableUnits > 0);

/**
 * Gives every shard's available money back to the wallet item, in one transaction (each shard's condition is the
 * amount read, so a hold that took some of it meanwhile makes it retry from a fresh read). Holds stay on their shard until settled.
 * Returns the parts as they are afterwards.
 */
export async function drainShards(organizationId: string, parts: WalletParts): Promise<WalletParts> {
  let current = parts;
  for (let attempt = 0; attempt < 5 && shardsHoldMoney(current); attempt++) {
    const moves = [...current.shards.entries()]
      .filter(([, shard]) => shard.availableUnits > 0)
      .map(([number, shard]) => ({ shard: number, units: shard.availableUnits }));
    try {
      await transact(drainItems(organizationId, moves));
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
    }
    current = (await readWalletParts(organizationId)) ?? current;
  }
  return current;
}

/** Gives the shards' money back when there is any (before a suspension decision or a charge the wallet item must cover). */
export async function gatherShards(organizationId: string): Promise<void> {
  const parts = await readWalletParts(organizationId);
  if (parts && shardsHoldMoney(parts)) await drainShards(organizationId, parts);
}
