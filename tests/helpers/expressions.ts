/** What a built write or read carries: its expressions and their placeholders. */
type Built = {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
} & Record<string, unknown>;

/**
 * One of a built request's expressions (its update by default) with its placeholders filled in, names as themselves
 * and values as JSON, to read what it does.
 */
export function spelled(
  built: Built,
  expression:
    "UpdateExpression" | "ConditionExpression" | "KeyConditionExpression" | "ProjectionExpression" = "UpdateExpression",
): string {
  return String(built[expression])
    .replace(/#n\d+/g, (name) => built.ExpressionAttributeNames![name]!)
    .replace(/:v\d+/g, (value) => JSON.stringify(built.ExpressionAttributeValues![value]));
}
