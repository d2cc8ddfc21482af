/**
 * Runs independent steps at once (one round trip instead of several) but
 * reports their failures in the order they are listed: the caller gets the same
 * error it got when the checks ran one after the other, whichever finishes first.
 */
export async function allInOrder<T extends readonly unknown[]>(steps: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(steps as readonly Promise<unknown>[]);
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
