import { table as definition } from "./definitions.ts";

/** Stages deployed with `removal: "retain"` (production) also get deletion protection and backups. */
const production = $app.removal === "retain";

const keyAttributes = [
  definition.partitionKey,
  definition.sortKey,
  ...Object.values(definition.globalIndexes).flatMap((index) => [index.partitionKey, index.sortKey]),
];

function projectionOf(projection: string | readonly string[]): "all" | "keys-only" | string[] {
  if (projection === "ALL") return "all";
  if (projection === "KEYS_ONLY") return "keys-only";
  return [...projection];
}

/** The single table: every entity, keyed `pk`/`sk`, with the manifest's GSIs and TTL. */
export const table = new sst.aws.Dynamo(definition.name, {
  fields: Object.fromEntries(keyAttributes.map((name) => [name, "string" as const])),
  primaryIndex: { hashKey: definition.partitionKey, rangeKey: definition.sortKey },
  globalIndexes: Object.fromEntries(
    Object.entries(definition.globalIndexes).map(([name, index]) => [
      name,
      { hashKey: index.partitionKey, rangeKey: index.sortKey, projection: projectionOf(index.projection) },
    ]),
  ),
  ttl: definition.ttlAttribute,
  stream: "new-and-old-images",
  deletionProtection: production,
  transform: {
    table: { pointInTimeRecovery: { enabled: production } },
  },
});

/**
 * What functions link to reach the table: item reads and writes on the table and
 * its indexes, nothing else (linking the table itself would grant `dynamodb:*`).
 */
export const tableData = new sst.Linkable(`${definition.name}Data`, {
  properties: { name: table.name },
  include: [
    sst.aws.permission({
      actions: [
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:UpdateItem",
        "dynamodb:DeleteItem",
        "dynamodb:BatchWriteItem",
        "dynamodb:ConditionCheckItem",
        "dynamodb:TransactGetItems",
        "dynamodb:TransactWriteItems",
      ],
      resources: [table.arn, $interpolate`${table.arn}/index/*`],
    }),
  ],
});
