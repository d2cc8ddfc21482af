import type { APIGatewayProxyStructuredResultV2 as Result } from "aws-lambda";
import { securityHeaders } from "#core/http/headers";
import type { AuthMode, Operation, SuccessAnswer } from "#core/http/operation";

/**
 * An explicit HTTP answer from an endpoint implementation, for the cases where
 * the operation's declared success status and JSON body are not enough
 * (CSV downloads, extra headers, a status decided at run time).
 */
export class HttpResponse {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}

  static noContent(): HttpResponse {
    return new HttpResponse(204, undefined);
  }

  static text(status: number, body: string, contentType: string, headers: Record<string, string> = {}): HttpResponse {
    return new HttpResponse(status, body, { "content-type": contentType, ...headers });
  }
}

/**
 * Headers every answer carries, problems included: bodies hold personal data
 * (leads, phone numbers, messages), so no shared cache may keep them, and no
 * browser may sniff a JSON or CSV body into something it runs. An operation
 * that sets either header itself keeps its own value.
 */
export function withProtectiveHeaders(result: Result): Result {
  return { ...result, headers: { ...securityHeaders, ...result.headers } };
}

/** The Lambda result of an implementation's outcome: an `HttpResponse` as it is, anything else as the operation's success answer. */
export function toResult(
  operation: Pick<Operation<AuthMode, undefined, undefined, undefined, SuccessAnswer>, "success">,
  outcome: unknown,
): Result {
  if (outcome instanceof HttpResponse) {
    const isText = typeof outcome.body === "string";
    return {
      statusCode: outcome.status,
      headers:
        isText || outcome.body === undefined
          ? outcome.headers
          : { "content-type": "application/json", ...outcome.headers },
      body: outcome.body === undefined ? "" : isText ? (outcome.body as string) : JSON.stringify(outcome.body),
    };
  }
  if (operation.success.status === 204) return { statusCode: 204, headers: {}, body: "" };
  return {
    statusCode: operation.success.status,
    headers: { "content-type": operation.success.contentType ?? "application/json" },
    body: JSON.stringify(outcome),
  };
}
