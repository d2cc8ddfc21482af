import { ContactAttemptsEntity } from "#core/db/entities/consent";
import { where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";

const DAY_MS = 24 * 3_600_000;
/** A claim whose text or call cannot be found yet may still be being written: it counts for this long. */
const UNSEEN_GRACE_MS = 60_000;
/** Optimistic rounds before giving up (each lost round means another send to the same recipient claimed meanwhile). */
const ROUNDS = 50;

export type Channel = "Sms" | "Call";

/** Whether each claimed attempt still counts (it reached, or may still reach, the recipient); undefined: not found. */
export type StillCounts = (ids: string[]) => Promise<Map<string, boolean | undefined>>;

export type CapClaim = { claimed: true } | { claimed: false; count: number };

/**
 * Claims one of a recipient's contacts of the last 24 hours under a cap, exactly: the attempts live on one item per
 * channel and number, and a claim is a conditional write on its `version`, so N sends at the same instant to a
 * recipient with a cap of 3 admit exactly 3 (the losers re-read and try again). A claim is the attempt's id, so a
 * retried send claims once. When the cap is reached, attempts that ended without reaching the recipient (blocked,
 * failed, never stored) are released by asking `stillCounts`, so a refused send does not use up the cap.
 */
export async function claimContactAttempt(
  organizationId: string,
  input: { channel: Channel; to: string; attemptId: string; cap: number; stillCounts: StillCounts },
): Promise<CapClaim> {
  const recipient = { organizationId, channel: input.channel, to: input.to };
  for (let round = 0; round < ROUNDS; round++) {
    const now = Date.now();
    const Item = await ContactAttemptsEntity.get(recipient, { consistent: true });
    const attempts = { ...((Item?.attempts as Record<string, number> | undefined) ?? {}) };
    if (attempts[input.attemptId] !== undefined) return { claimed: true };
    for (const [id, at] of Object.entries(attempts)) if (at <= now - DAY_MS) delete attempts[id];
    if (Object.keys(attempts).length >= input.cap) {
      const counts = await input.stillCounts(Object.keys(attempts));
      for (const [id, at] of Object.entries(attempts)) {
        const counting = counts.get(id);
        if (counting === false || (counting === undefined && at <= now - UNSEEN_GRACE_MS)) delete attempts[id];
      }
      const count = Object.keys(attempts).length;
      if (count >= input.cap) return { claimed: false, count };
    }
    attempts[input.attemptId] = now;
    const version = Number(Item?.version ?? 0);
    const written = await conditionally(
      table.put(
        ContactAttemptsEntity.putAt(
          recipient,
          { organizationId, attempts, version: version + 1, expiresAt: Math.ceil((now + DAY_MS) / 1000) + 3600 },
          { condition: where.any(where.new(), where.equals("version", version)) },
        ),
      ),
    );
    if (written) return { claimed: true };
  }
  throw new Error(`Could not claim a contact of ${input.to} after ${ROUNDS} rounds of concurrent sends.`);
}
