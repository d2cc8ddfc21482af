import { UnreadableItemError } from "#core/errors";
import { logger } from "#core/observability/index";

/**
 * `read` of each stored item of a collection, leaving out any it cannot read (`UnreadableItemError`: storage our code
 * cannot interpret, such as a corrupt automation run), logged with its key: one such item fails neither the pages nor
 * the reports that meet it. Read by its id, it still answers 500 `unreadable_item` naming it.
 */
export function readableItems<TItem>(
  stored: Record<string, unknown>[],
  read: (item: Record<string, unknown>) => TItem,
): TItem[] {
  return stored.flatMap((item) => {
    try {
      return [read(item)];
    } catch (error) {
      if (!(error instanceof UnreadableItemError)) throw error;
      logger.error("a stored item cannot be read; left out of its list", { pk: item.pk, sk: item.sk, error });
      return [];
    }
  });
}
