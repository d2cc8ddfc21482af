import { shardOf } from "#core/db/entity";
import { getItem, type Item } from "#core/db/items";
import { org, settingsCopies, type Key } from "#core/db/keys/shared";
import { transact, Transaction } from "#core/db/transact";

/**
 * Which copy of a copied settings item (`copyKey`, core/db/keys/shared.ts) a read takes: the copy of what it is for
 * (a message or call id: the hold and the settlement of one message read the same copy), which spreads a busy
 * organization's reads over the copies; any copy when it names nothing. Every copy is written in the one transaction
 * that changes the item, so they never differ and a consistent read of any of them sees a change at once.
 */
export function copyFor(by?: string): number {
  return by === undefined ? Math.floor(Math.random() * settingsCopies) : shardOf(by, settingsCopies);
}

/** Every copy's number, for the transaction that writes them all. */
export const everyCopy: readonly number[] = Array.from({ length: settingsCopies }, (_, copy) => copy);

/**
 * The stored settings item a change starts from, read consistently: a copy (`keyOf`), or, while `migrate-keys` has
 * not yet copied it, the old item in the organization's partition (`ORG#<org>`, the same sort key; one more read,
 * only then). The change then writes every copy, which migrate-keys keeps (deleting the old item): a change that
 * started from the missing copy would drop what the old item held (a stored credential, earlier price overrides).
 */
export async function storedForChange(organizationId: string, keyOf: (copy: number) => Key): Promise<Item | undefined> {
  const key = keyOf(copyFor());
  return (
    (await getItem(key, { consistent: true })) ??
    (await getItem({ pk: org(organizationId), sk: key.sk }, { consistent: true })) ??
    // migrate-keys may have copied the old item and deleted it between the two reads: then the copy holds it.
    (await getItem(key, { consistent: true }))
  );
}

/**
 * Writes every copy in one transaction (`put`: the put of copy `copy`), so they never differ and the next read of any
 * copy sees the change.
 */
export async function putEveryCopy(
  name: string,
  put: (copy: number) => Parameters<Transaction["put"]>[1],
): Promise<void> {
  const transaction = new Transaction();
  for (const copy of everyCopy) transaction.put(name, put(copy));
  await transact(transaction);
}
