import type { APIGatewayProxyEventV2, Context } from "aws-lambda";

/**
 * A stand-in Lambda for tests of the local API Gateway: answers with the event it
 * received, or (by `x-echo-mode`) with the other result shapes API Gateway accepts.
 */
export async function handler(event: APIGatewayProxyEventV2, context: Context): Promise<unknown> {
  switch (event.headers["x-echo-mode"]) {
    case "throw":
      throw new Error("handler bug");
    case "hang":
      return new Promise(() => undefined);
    case "object":
      return { hello: "world" };
    case "string":
      return "just a string";
    case "cookies":
      return { statusCode: 201, headers: { "X-One": "1" }, cookies: ["a=1; Path=/", "b=2"], body: "made" };
    case "binary":
      return {
        statusCode: 200,
        headers: { "content-type": "application/octet-stream" },
        body: Buffer.from([0, 1, 2, 255]).toString("base64"),
        isBase64Encoded: true,
      };
    default:
      return {
        statusCode: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          event,
          context: {
            functionName: context.functionName,
            awsRequestId: context.awsRequestId,
            remainingMs: context.getRemainingTimeInMillis(),
          },
        }),
      };
  }
}
