import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { Transaction, TransactionConditionFailed, transact } from "#core/db/transact";
import { openLeadClosed } from "#core/routing/open-count";

/**
 * Leads open for their assignee (docs/routing.md "Open leads"): a lead routed to a user with an open-leads cap notes
 * `openFor` and counts in the user's open count until it is answered or reassigned. Small on purpose: the analytics
 * aggregator calls `leadAnswered`.
 */

/** The user a lead is open for, if any. */
export async function openHolder(organizationId: string, leadId: string): Promise<string | undefined> {
  const { Item } = await table.get({
    Key: keys.lead(organizationId, leadId),
    ConsistentRead: true,
    ProjectionExpression: "openFor",
  });
  return (Item?.openFor as string | null | undefined) ?? undefined;
}

/**
 * The lead was answered (an outbound message sent or outbound call answered, as analytics counts a response): it is
 * no longer open for the user routing gave it to. Once per lead: `openFor` is cleared in the same transaction as the
 * count, on condition it still names that user, so a redelivered response changes nothing.
 */
export async function leadAnswered(organizationId: string, leadId: string): Promise<void> {
  const openFor = await openHolder(organizationId, leadId);
  if (!openFor) return;
  try {
    await transact(
      new Transaction()
        .update("lead", {
          Key: keys.lead(organizationId, leadId),
          UpdateExpression: "SET openFor = :none",
          ConditionExpression: "openFor = :user",
          ExpressionAttributeValues: { ":none": null, ":user": openFor },
        })
        .include("open", openLeadClosed(organizationId, openFor)),
    );
  } catch (error) {
    // Closed meanwhile (another copy of the response, or a reassignment): nothing left to do.
    if (!(error instanceof TransactionConditionFailed)) throw error;
  }
}
