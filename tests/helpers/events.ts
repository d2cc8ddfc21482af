import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { randomUUID } from "node:crypto";

/** An API Gateway HTTP API (payload 2.0) event, for calling a handler module directly. */
export function apiEvent(
  overrides: {
    method?: string;
    path?: string;
    routeKey?: string;
    headers?: Record<string, string>;
    body?: unknown;
    pathParameters?: Record<string, string>;
    queryStringParameters?: Record<string, string>;
    sourceIp?: string;
  } = {},
): APIGatewayProxyEventV2 {
  const method = overrides.method ?? "GET";
  const path = overrides.path ?? "/";
  const body =
    overrides.body === undefined
      ? undefined
      : typeof overrides.body === "string"
        ? overrides.body
        : JSON.stringify(overrides.body);
  return {
    version: "2.0",
    routeKey: overrides.routeKey ?? `${method} ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(overrides.queryStringParameters ?? {}).toString(),
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...overrides.headers },
    queryStringParameters: overrides.queryStringParameters,
    pathParameters: overrides.pathParameters,
    body,
    isBase64Encoded: false,
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      domainName: "localhost",
      domainPrefix: "localhost",
      http: {
        method,
        path,
        protocol: "HTTP/1.1",
        sourceIp: overrides.sourceIp ?? `203.0.113.${Math.floor(Math.random() * 250)}`,
        userAgent: "vitest",
      },
      requestId: randomUUID(),
      routeKey: overrides.routeKey ?? `${method} ${path}`,
      stage: "$default",
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  };
}

/** A Lambda context good enough for handlers under test. */
export function lambdaContext(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: "test",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:test",
    memoryLimitInMB: "1024",
    awsRequestId: randomUUID(),
    logGroupName: "test",
    logStreamName: "test",
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
