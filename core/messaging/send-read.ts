import { walletPartsRead, type WalletParts } from "#core/billing/wallet-read";
import { combinedRead, nothingToRead, type PlannedRead } from "#core/db/items";
import * as LeadReads from "#core/leads/reads";
import * as Conversations from "#core/messaging/conversations";
import type { Conversation } from "#core/messaging/conversations";
import { storedSettingsItem } from "#core/messaging/settings-item";

/**
 * A send's first read, apart from `Messages` (messages.ts), whose send brings the sender's registration check (phone
 * parsing), the lifecycle and the consent rules. The automation step imports this module statically (it plans the
 * read beside its read of the lead for an inline first step that sends), so the automation-runs consumer's cold start
 * loads it; the send itself is loaded only when an action sends (core/automations/runs/actions.ts).
 */

/**
 * What a send reads first, in one consistent BatchGetItem: the lead's item (unless the caller has the lead), the
 * wallet and its shards, the number's conversation pointer, the conversation this instance last sent to for the
 * recipient (a hint), the caller's own read, and the messaging settings (unless this instance holds them warm).
 */
export type FirstRead = [
  Record<string, unknown> | undefined,
  WalletParts | undefined,
  string | undefined,
  Conversation | undefined,
  void,
  void,
];

/** The read `Messages.send` makes first (`planned.recipient` picks the conversation hint), or a caller ahead of it. */
export function firstRead(
  organizationId: string,
  planned: { leadId?: string | undefined; phone?: string | undefined; recipient: string; alsoRead?: PlannedRead<void> },
): PlannedRead<FirstRead> {
  const hinted = Conversations.hint(organizationId, planned.recipient);
  return combinedRead<FirstRead>([
    planned.leadId ? LeadReads.itemRead(organizationId, planned.leadId) : nothingToRead,
    walletPartsRead(organizationId),
    planned.phone ? Conversations.idReadByPhone(organizationId, planned.phone) : nothingToRead,
    hinted ? Conversations.readById(organizationId, hinted) : nothingToRead,
    planned.alsoRead ?? nothingToRead,
    // The messaging settings (whether senders must be registered), read here unless this instance holds them warm.
    storedSettingsItem.readWith(organizationId),
  ]);
}

/** A send's first read for a lead at `phone`, made by a caller beside its own read of that lead (`sendRead`). */
export interface PreparedSend {
  leadId: string;
  phone: string;
  items: FirstRead;
}

/**
 * The first read of a send to the lead `leadId` at `phone` (its wallet, the number's conversation pointer, the
 * settings), for a caller to batch with its own consistent read of that lead (an automation step, issue 27); its
 * result goes to `send` as `prepared`, which uses it only if the lead it is given still has `phone` (else `send`
 * reads them again for the number it has).
 */
export function sendRead(organizationId: string, leadId: string, phone: string): PlannedRead<PreparedSend> {
  const read = firstRead(organizationId, { phone, recipient: leadId });
  return { keys: read.keys, from: (items) => ({ leadId, phone, items: read.from(items) }) };
}
