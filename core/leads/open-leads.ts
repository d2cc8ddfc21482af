import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
import { Transaction, TransactionConditionFailed, transact } from "#core/db/transact";
import { openLeadClosed } from "#core/routing/open-count";

/**
 * Leads open for their assignee (docs/routing.md "Open leads cap"): a lead routed to a user with an open-leads cap
 * notes `openFor` and counts in the user's open count until it is answered or reassigned. Small on purpose: the
 * analytics aggregator calls `leadAnswered`.
 */

async function storedLead(organizationId: string, leadId: string) {
  const { Item } = await table.get({ Key: keys.lead(organizationId, leadId), ConsistentRead: true });
  return Item;
}

/** The user a lead is open for, if any. */
export async function openHolder(organizationId: string, leadId: string): Promise<string | undefined> {
  return ((await storedLead(organizationId, leadId))?.openFor as string | null | undefined) ?? undefined;
}

/**
 * The lead was answered (an outbound message sent or outbound call answered, as analytics counts a response): it is
 * no longer open for the user routing gave it to. Once per lead: `openFor` is cleared in the same transaction as the
 * count, on condition it still names that user, so a redelivered response changes nothing. `known`: the caller's
 * consistent read of the lead, made after the response was stored, found it open for nobody: nothing to close, and
 * no read (issue 27; a lead open for someone is read again here, since the write needs the stored item).
 */
export async function leadAnswered(organizationId: string, leadId: string, known?: { openFor: null }): Promise<void> {
  if (known) return;
  const item = await storedLead(organizationId, leadId);
  const openFor = item?.openFor as string | null | undefined;
  if (!item || !openFor) return;
  try {
    await transact(
      new Transaction()
        .update(
          "lead",
          LeadEntity.update(
            { ...LeadEntity.fromItem(item), organizationId },
            { openFor: null },
            { condition: where.equals("openFor", openFor) },
          ),
        )
        .include("open", openLeadClosed(organizationId, openFor)),
    );
  } catch (error) {
    // Closed meanwhile (another copy of the response, or a reassignment): nothing left to do.
    if (!(error instanceof TransactionConditionFailed)) throw error;
  }
}
