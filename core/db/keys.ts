/**
 * The single-table key layout, in one place (docs/data-model.md mirrors it).
 *
 * Every tenant item's partition key begins with `ORG#<organizationId>`, and the
 * only way to build one is from an organization id, so an operation holding an
 * actor of organization A cannot form a key of organization B. The few keys that
 * are not tenant data (rate-limit windows for anonymous IPs, the operator's
 * organization index) say so below.
 */

export type Key = { pk: string; sk: string };

const org = (organizationId: string) => `ORG#${organizationId}`;

export const keys = {
  organization: (organizationId: string): Key => ({ pk: org(organizationId), sk: "PROFILE" }),
  /** Operator-only index of organizations (admin CLI `list-orgs`), on gsi1. */
  organizationIndex: (createdAt: string, organizationId: string) => ({
    gsi1pk: "ORGANIZATIONS",
    gsi1sk: `${createdAt}#${organizationId}`,
  }),

  /** API keys embed their organization (`sk_<org>_<secret>`), so lookup is one GetItem. */
  apiKey: (organizationId: string, keyHash: string): Key => ({ pk: org(organizationId), sk: `APIKEY#${keyHash}` }),

  automation: (organizationId: string, automationId: string): Key => ({
    pk: org(organizationId),
    sk: `AUTOMATION#${automationId}`,
  }),
  automationPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "AUTOMATION#" }),

  /** Fixed 60 s windows; the item expires by TTL soon after its window. */
  rateLimitWindow: (partition: RateLimitPartition, windowStart: number): Key =>
    partition.kind === "ip" || partition.kind === "user"
      ? // Not tenant data: anonymous traffic and users without an organization have none.
        { pk: `${partition.kind.toUpperCase()}#${partition.id}`, sk: `RATE#${windowStart}` }
      : { pk: org(partition.organizationId), sk: `RATE#${partition.kind}#${windowStart}` },

  /** Idempotency records of write routes, kept 24 h. */
  idempotency: (organizationId: string, scope: string, idempotencyKey: string): Key => ({
    pk: org(organizationId),
    sk: `IDEMPOTENCY#${scope}#${idempotencyKey}`,
  }),
};

export type RateLimitPartition =
  | { kind: "business"; organizationId: string }
  | { kind: "intake"; organizationId: string }
  | { kind: "user"; id: string }
  | { kind: "ip"; id: string };

/** The entity names stored in the `entity` attribute of every item. */
export const entities = {
  organization: "Organization",
  apiKey: "ApiKey",
  automation: "Automation",
  rateLimitWindow: "RateLimitWindow",
  idempotency: "IdempotencyRecord",
} as const;
