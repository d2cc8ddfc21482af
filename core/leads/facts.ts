import { LeadEntity } from "#core/db/entities/leads";

/** What the analytics counting needs of a lead (its source, price and processing status); undefined when gone. A small module, so the analytics consumer loads no lead intake. */
export async function leadCountingFacts(
  organizationId: string,
  leadId: string,
): Promise<
  | { sourceId: string | null; price: string | undefined; processingStatus: string; assignedUserId: string | null }
  | undefined
> {
  const Item = await LeadEntity.get(
    { organizationId, id: leadId },
    { attributes: ["sourceId", "metadata.price", "processingStatus", "assignedUserId"], consistent: true },
  );
  if (!Item) return undefined;
  const price = (Item.metadata as { price?: string } | undefined)?.price;
  return {
    sourceId: (Item.sourceId as string | null) ?? null,
    price,
    processingStatus: String(Item.processingStatus),
    assignedUserId: (Item.assignedUserId as string | null | undefined) ?? null,
  };
}
