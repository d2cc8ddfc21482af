import { shardOf } from "#core/db/entity";
import { settingsCopies } from "#core/db/keys/shared";

/**
 * Which copy of a copied settings item (`copyKey`, core/db/keys/shared.ts) a read takes: the copy of what it is for
 * (a message id: the hold and the settlement of one message read the same copy), which spreads a busy organization's
 * reads over the copies; any copy when it names nothing. Every copy is written in the one transaction that changes
 * the item, so they never differ and a consistent read of any of them sees a change at once.
 */
export function copyFor(by?: string): number {
  return by === undefined ? Math.floor(Math.random() * settingsCopies) : shardOf(by, settingsCopies);
}

/** Every copy's number, for the transaction that writes them all. */
export const everyCopy: readonly number[] = Array.from({ length: settingsCopies }, (_, copy) => copy);
