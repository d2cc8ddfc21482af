import { table } from "#core/db/items";
import { keys } from "#core/db/keys";

/** What the analytics counting needs of a lead (its source, price and processing status); undefined when gone. A small module, so the analytics consumer loads no lead intake. */
export async function leadCountingFacts(organizationId: string, leadId: string): Promise<{ sourceId: string | null; price: string | undefined; processingStatus: string } | undefined> {
  const { Item } = await table.get({ Key: keys.lead(organizationId, leadId), ProjectionExpression: "sourceId, metadata.price, processingStatus", ConsistentRead: true });
  if (!Item) return undefined;
  const price = (Item.metadata as { price?: string } | undefined)?.price;
  return { sourceId: (Item.sourceId as string | null) ?? null, price, processingStatus: String(Item.processingStatus) };
}
