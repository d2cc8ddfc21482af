import { randomUUID } from "node:crypto";
import { request as httpRequest } from "node:http";
import { SendMessageCommand, ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { APIGatewayProxyEventV2, SQSRecord } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startHttpServer, type LocalHttpServer } from "#local/http-server";
import { startQueuePoller } from "#local/queue-poller";
import { createQueueUrl, localSqsClient, queueArn } from "#local/resources";
import { httpLimits } from "#stacks/definitions";
import { request } from "#tests/helpers/stack";

describe("the local API server", () => {
  it("answers an unknown route through the $default fallback with a 404 problem", async () => {
    const response = await request("GET", `/no-such-route-${randomUUID()}`);
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status: 404, title: "Not Found" });
  });

  it("serves the local JWKS that user tokens are verified against", async () => {
    const response = await request("GET", "/.well-known/jwks.json");
    expect(response.status).toBe(200);
    expect(response.body.keys[0]).toMatchObject({ kty: "RSA", alg: "RS256", kid: inject("signing").privateJwk.kid });
    expect(response.body.keys[0]).not.toHaveProperty("d");
  });
});

describe("the local API Gateway", () => {
  const echo = "tests/setup/echo-handler.handler";
  let server: LocalHttpServer;

  beforeAll(async () => {
    server = await startHttpServer({
      port: 0,
      routes: [
        { method: "GET", path: "/things/{id}", handler: echo },
        { method: "GET", path: "/things/all/my", handler: echo },
        { method: "POST", path: "/things/{id}", handler: echo },
        { method: "GET", path: "/files/{path+}", handler: echo },
        { method: "GET", path: "/broken", handler: "tests/setup/no-such-file.handler" },
      ],
      fallback: { routeKey: "$default", handler: echo },
    });
  });
  afterAll(() => server.stop());

  const call = (path: string, init: RequestInit = {}) => fetch(`${server.url}${path}`, init);
  const echoed = async (path: string, init: RequestInit = {}) => {
    const response = await call(path, init);
    expect(response.status).toBe(200);
    return (await response.json()) as {
      event: APIGatewayProxyEventV2;
      context: { functionName: string; remainingMs: number };
    };
  };

  /** A GET that sends a repeated header as separate lines (fetch would merge them). */
  const rawGet = (path: string, headers: Record<string, string | string[]>) =>
    new Promise<string>((resolve, reject) => {
      const outgoing = httpRequest(`${server.url}${path}`, { headers }, (response) => {
        let text = "";
        response
          .setEncoding("utf8")
          .on("data", (chunk: string) => (text += chunk))
          .on("end", () => resolve(text));
      });
      outgoing.on("error", reject).end();
    });

  it("builds a payload 2.0 event with the route key, decoded path parameters and comma-joined repeats", async () => {
    const { event, context } = JSON.parse(
      await rawGet("/things/a%20b?x=1&x=2&y=%C3%A9", {
        "X-Custom": ["one", "two"],
        Cookie: "s=1; t=2",
        "User-Agent": "vitest",
      }),
    ) as Awaited<ReturnType<typeof echoed>>;
    expect(event).toMatchObject({
      version: "2.0",
      routeKey: "GET /things/{id}",
      // HTTP API decodes the path, rawPath included (issue 23).
      rawPath: "/things/a b",
      rawQueryString: "x=1&x=2&y=%C3%A9",
      cookies: ["s=1", "t=2"],
      queryStringParameters: { x: "1,2", y: "é" },
      pathParameters: { id: "a b" },
      isBase64Encoded: false,
      requestContext: {
        accountId: expect.any(String),
        apiId: expect.any(String),
        stage: "$default",
        routeKey: "GET /things/{id}",
        http: { method: "GET", path: "/things/a b", protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "vitest" },
        timeEpoch: expect.any(Number),
      },
    });
    expect(event.headers["x-custom"]).toBe("one,two");
    expect(event.headers).not.toHaveProperty("cookie");
    expect(event.requestContext.time).toMatch(/^\d{2}\/\w{3}\/\d{4}:\d{2}:\d{2}:\d{2} \+0000$/);
    expect(event.body).toBeUndefined();
    expect(context.functionName).toBe("tests-setup-echo-handler");
    // The deployed route function's timeout (stacks/definitions.ts httpLimits), not the gateway's 29 s.
    expect(context.remainingMs).toBeLessThanOrEqual(httpLimits.functionTimeoutSeconds * 1000);
    expect(context.remainingMs).toBeGreaterThan((httpLimits.functionTimeoutSeconds - 5) * 1000);
  });

  it("prefers a static segment over a parameter and sends unmatched methods to $default", async () => {
    expect((await echoed("/things/all/my")).event.routeKey).toBe("GET /things/all/my");
    expect((await echoed("/files/a/b/c.txt")).event.pathParameters).toEqual({ path: "a/b/c.txt" });
    const wrongMethod = await echoed("/things/1", { method: "DELETE" });
    expect(wrongMethod.event.routeKey).toBe("$default");
    expect(wrongMethod.event.pathParameters).toBeUndefined();
  });

  it("passes text bodies as text and other bodies base64-encoded", async () => {
    const json = await echoed("/things/1", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(json.event).toMatchObject({ body: '{"a":1}', isBase64Encoded: false });
    const binary = await echoed("/things/1", {
      method: "POST",
      headers: { "content-type": "image/png" },
      body: new Uint8Array([137, 80, 0]),
    });
    expect(binary.event).toMatchObject({ body: Buffer.from([137, 80, 0]).toString("base64"), isBase64Encoded: true });
  });

  it("converts every result shape the way API Gateway does", async () => {
    const object = await call("/x", { headers: { "x-echo-mode": "object" } });
    expect([object.status, object.headers.get("content-type"), await object.json()]).toEqual([
      200,
      "application/json",
      { hello: "world" },
    ]);
    const text = await call("/x", { headers: { "x-echo-mode": "string" } });
    expect(await text.text()).toBe("just a string");
    const cookies = await call("/x", { headers: { "x-echo-mode": "cookies" } });
    expect([cookies.status, cookies.headers.get("x-one"), cookies.headers.getSetCookie()]).toEqual([
      201,
      "1",
      ["a=1; Path=/", "b=2"],
    ]);
    const binary = await call("/x", { headers: { "x-echo-mode": "binary" } });
    expect([...new Uint8Array(await binary.arrayBuffer())]).toEqual([0, 1, 2, 255]);
  });

  it("answers a thrown handler error or a missing module with a 500 problem", async () => {
    for (const response of [await call("/x", { headers: { "x-echo-mode": "throw" } }), await call("/broken")]) {
      expect(response.status).toBe(500);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
      expect(await response.json()).toMatchObject({ title: "Internal Server Error", status: 500 });
    }
  });

  it("refuses a request over Lambda's 6 MB invocation payload with 413 problem+json, as deployed", async () => {
    const response = await call("/things/1", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x".repeat(httpLimits.maxInvocationPayloadBytes),
    });
    expect(response.status).toBe(413);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await response.json()).toMatchObject({ title: "Payload Too Large", status: 413, instance: "/things/1" });
  });

  it("rejects a payload over 10 MB with 413 before invoking the handler", async () => {
    const response = await call("/things/1", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x".repeat(10 * 1024 * 1024 + 1),
    });
    expect(response.status).toBe(413);
    expect([
      response.headers.get("content-type"),
      response.headers.get("cache-control"),
      response.headers.get("x-content-type-options"),
    ]).toEqual(["application/problem+json", "no-store", "nosniff"]);
    expect(await response.json()).toMatchObject({ title: "Payload Too Large", status: 413, instance: "/things/1" });
  });
});

describe("a local queue consumer", () => {
  let client: SQSClient;
  beforeAll(() => {
    client = localSqsClient(inject("stackEnv").SQS_ENDPOINT!);
  });
  afterAll(() => client.destroy());

  it("runs up to the event source's maximumConcurrency batches at once, never more", async () => {
    const queueUrl = await createQueueUrl(client, `test-${randomUUID().slice(0, 8)}`, { VisibilityTimeout: "60" });
    const maximumConcurrency = 3;
    let inFlight = 0;
    let mostAtOnce = 0;
    let handled = 0;
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const poller = startQueuePoller({
      client,
      queueUrl,
      queueArn: await queueArn(client, queueUrl),
      batchSize: 1,
      timeoutSeconds: 60,
      maximumConcurrency,
      // Each batch waits until the test has seen the most batches at once, so they overlap.
      handler: async () => {
        mostAtOnce = Math.max(mostAtOnce, ++inFlight);
        await released;
        inFlight--;
        handled++;
      },
    });
    try {
      for (let index = 0; index < 2 * maximumConcurrency; index++)
        await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: `m${index}` }));
      await expect.poll(() => mostAtOnce, { timeout: 30_000 }).toBe(maximumConcurrency);
      release();
      await expect.poll(() => handled, { timeout: 30_000 }).toBe(2 * maximumConcurrency);
      expect(mostAtOnce).toBe(maximumConcurrency);
    } finally {
      release();
      await poller.stop();
    }
  });

  it("gets real SQS batches, deletes what succeeded, redelivers reported failures and dead-letters after max receives", async () => {
    const name = `test-${randomUUID().slice(0, 8)}`;
    const deadLetterUrl = await createQueueUrl(client, `${name}-dlq`, {});
    const queueUrl = await createQueueUrl(client, name, {
      VisibilityTimeout: "1",
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: await queueArn(client, deadLetterUrl), maxReceiveCount: 2 }),
    });
    const arn = await queueArn(client, queueUrl);
    const received: SQSRecord[] = [];
    const poller = startQueuePoller({
      client,
      queueUrl,
      queueArn: arn,
      batchSize: 10,
      timeoutSeconds: 5,
      handler: async (event) => {
        received.push(...event.Records);
        const failed = event.Records.filter(
          (record) =>
            record.body === "always-fails" ||
            (record.body === "fails-once" && record.attributes.ApproximateReceiveCount === "1"),
        );
        return { batchItemFailures: failed.map((record) => ({ itemIdentifier: record.messageId })) };
      },
    });
    try {
      for (const body of ["succeeds", "fails-once", "always-fails"]) {
        await client.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: body,
            MessageAttributes: { kind: { DataType: "String", StringValue: body } },
          }),
        );
      }
      await expect
        .poll(() => received.filter((record) => record.body === "always-fails").length, { timeout: 15_000 })
        .toBe(2);
      await expect
        .poll(() => received.filter((record) => record.body === "fails-once").length, { timeout: 15_000 })
        .toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
    } finally {
      await poller.stop();
    }

    const receives = (body: string) =>
      received.filter((record) => record.body === body).map((record) => record.attributes.ApproximateReceiveCount);
    expect(receives("succeeds")).toEqual(["1"]);
    expect(receives("fails-once")).toEqual(["1", "2"]);
    expect(receives("always-fails")).toEqual(["1", "2"]);
    expect(received[0]).toMatchObject({
      eventSource: "aws:sqs",
      eventSourceARN: arn,
      awsRegion: expect.any(String),
      md5OfBody: expect.stringMatching(/^[0-9a-f]{32}$/),
      messageAttributes: { kind: { dataType: "String", stringValue: expect.any(String) } },
      attributes: {
        SentTimestamp: expect.any(String),
        ApproximateFirstReceiveTimestamp: expect.any(String),
        SenderId: expect.any(String),
      },
    });
    const { Messages } = await client.send(
      new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
    );
    expect(Messages?.map((message) => message.Body)).toEqual(["always-fails"]);
  });
});

describe("the local API Gateway's timeouts, as deployed", () => {
  const hang = { method: "GET" as const, path: "/hang", handler: "tests/setup/echo-handler.handler" };
  const hangingCall = async (limits: { functionTimeoutSeconds: number; integrationTimeoutSeconds: number }) => {
    const server = await startHttpServer({ port: 0, routes: [hang], limits });
    try {
      const response = await fetch(`${server.url}/hang`, { headers: { "x-echo-mode": "hang" } });
      return { status: response.status, type: response.headers.get("content-type"), body: await response.json() };
    } finally {
      await server.stop();
    }
  };

  it("answers a function killed at its timeout with 500 problem+json", async () => {
    expect(await hangingCall({ functionTimeoutSeconds: 1, integrationTimeoutSeconds: 29 })).toMatchObject({
      status: 500,
      type: "application/problem+json",
      body: { status: 500, instance: "/hang" },
    });
  });

  it("answers 503 problem+json when the gateway's integration timeout comes first", async () => {
    expect(await hangingCall({ functionTimeoutSeconds: 30, integrationTimeoutSeconds: 1 })).toMatchObject({
      status: 503,
      type: "application/problem+json",
      body: { status: 503, instance: "/hang" },
    });
  });
});
