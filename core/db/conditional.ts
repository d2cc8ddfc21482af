import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";

/**
 * Runs a conditional write: its result, or undefined when the condition did not
 * hold (the expected "someone got there first"). Any other error is thrown.
 */
export async function conditionally<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}
