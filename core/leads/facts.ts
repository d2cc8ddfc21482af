import { LeadEntity } from "#core/db/entities/leads";
import { oneItem, type PlannedRead } from "#core/db/items";

/**
 * What the analytics counting needs of a lead: its source, price, processing status and assignee, and whom it is open
 * for (`leadAnswered`). A small module, so the analytics consumer loads no lead intake.
 */
export interface LeadCountingFacts {
  sourceId: string | null;
  price: string | undefined;
  processingStatus: string;
  assignedUserId: string | null;
  openFor: string | null;
}

function factsOf(Item: Record<string, unknown> | undefined): LeadCountingFacts | undefined {
  if (!Item) return undefined;
  return {
    sourceId: (Item.sourceId as string | null) ?? null,
    price: (Item.metadata as { price?: string } | undefined)?.price,
    processingStatus: String(Item.processingStatus),
    assignedUserId: (Item.assignedUserId as string | null | undefined) ?? null,
    openFor: (Item.openFor as string | null | undefined) ?? null,
  };
}

/** The lead's counting facts (undefined when gone), read consistently on their own (only the attributes needed). */
export async function leadCountingFacts(
  organizationId: string,
  leadId: string,
): Promise<LeadCountingFacts | undefined> {
  return factsOf(
    await LeadEntity.get(
      { organizationId, id: leadId },
      {
        attributes: ["sourceId", "metadata.price", "processingStatus", "assignedUserId", "openFor"],
        consistent: true,
      },
    ),
  );
}

/**
 * The same facts as a planned read of the whole lead, to batch with the histograms one count reads anyway (issue 27:
 * a BatchGetItem has one projection per table, so the lead is read whole there).
 */
export function leadCountingFactsRead(
  organizationId: string,
  leadId: string,
): PlannedRead<LeadCountingFacts | undefined> {
  return oneItem(LeadEntity.key({ organizationId, id: leadId }), factsOf);
}
