import type { IndexName } from "#stacks/definitions";

/**
 * The table's secondary indexes named by the access pattern each query serves.
 * Several patterns share one physical index (overloading: their keys never
 * collide, each beginning with its own entity prefix), so a query states what
 * it reads (`leadsBySource`), and this map is the only place that knows where
 * that lives. The attribute names of each index are `<index>pk` / `<index>sk`.
 */
export const accessPatterns = {
  // gsi1: an entity's items under one parent, in creation order.
  leadsBySource: "gsi1",
  eventsByLead: "gsi1",
  runsByOrganization: "gsi1",
  messagesByConversation: "gsi1",
  organizationsByCreation: "gsi1",
  paymentsToReview: "gsi1",
  // gsi2: one item found by a normalised natural key (projects only `id`).
  leadsByPhone: "gsi2",
  activeRunsByAutomation: "gsi2",
  // gsi3: work that becomes due at a time, sharded by bucket (scheduled sends, waits, stuck leads, holds).
  dueWork: "gsi3",
  // gsi4-gsi6: lists in the order of one more field (docs/data-model.md "Listing and its cost").
  sortedByField: "gsi4",
  sortedByPrice: "gsi5",
  // The organization's suppressed numbers in number order (each entry in a partition of its own since issue 27).
  suppressionsByNumber: "gsi5",
  sortedByModifiedAt: "gsi6",
  // gsi7: a list narrowed to one value of a closed set, in creation order.
  leadsByProcessingStatus: "gsi7",
  eventsByType: "gsi7",
  conversationsByUnread: "gsi7",
  // gsi8: an organization's (or one automation's) items of an entity whose own items live in partitions of their own,
  // in creation order, write-sharded (`ORG#o#LEADS#<shard>`): the listing no single partition carries (issue 27).
  leadsByCreation: "gsi8",
  eventsByCreation: "gsi8",
  runsByAutomation: "gsi8",
  analyticsLeadsByCreation: "gsi8",
  callsByCreation: "gsi8",
  conversationsByCreation: "gsi8",
  phoneNumbersByCreation: "gsi8",
  automationsByCreation: "gsi8",
  ledgerByCreation: "gsi8",
} as const satisfies Record<string, IndexName>;

export type AccessPattern = keyof typeof accessPatterns;

/** The physical index of an access pattern, and its key attribute names. */
export function indexOf(pattern: AccessPattern): { name: IndexName; pk: string; sk: string } {
  const name = accessPatterns[pattern];
  return { name, pk: `${name}pk`, sk: `${name}sk` };
}

/** The item without its table and index key attributes (a record to derive them from again). */
export function withoutKeys(item: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(item).filter(([name]) => !/^(pk|sk|gsi\d+pk|gsi\d+sk)$/.test(name)));
}
