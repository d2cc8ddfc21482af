import { describe, expect, it, vi } from "vitest";
import * as v from "valibot";
import { endpoint } from "#core/http/endpoint";
import { defineUnroutedOperation } from "#core/http/operation";
import { NotFoundError } from "#core/errors";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { applyStackEnv } from "#tests/helpers/stack";

applyStackEnv();

const probe = defineUnroutedOperation({
  operationId: "probe",
  method: "POST",
  path: "/probe",
  summary: "test operation",
  tag: "Test",
  auth: "public",
  body: v.strictObject({
    mode: v.picklist(["ok", "bug", "missing"]),
    count: v.optional(v.pipe(v.number(), v.integer())),
  }),
  success: { status: 201, description: "created" },
  problems: [400, 404, 429],
});

const handler = endpoint(probe, async ({ body }) => {
  if (body.mode === "bug") throw new Error("database password is hunter2");
  if (body.mode === "missing") throw new NotFoundError("Probe", "p1");
  return { echoed: body };
});

const call = (body: unknown) => handler(apiEvent({ method: "POST", path: "/probe", body }), lambdaContext());

describe("the shared endpoint chain", () => {
  it("answers with the operation's success status and JSON", async () => {
    const result = await call({ mode: "ok", count: 2 });
    expect(result.statusCode).toBe(201);
    expect(result.headers?.["content-type"]).toBe("application/json");
    expect(JSON.parse(result.body!)).toEqual({ echoed: { mode: "ok", count: 2 } });
  });

  it("turns a bug into a generic 500 problem with a correlation id that matches the log line", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const event = apiEvent({ method: "POST", path: "/probe", body: { mode: "bug" } });
    const result = await handler(event, lambdaContext());
    expect(result.statusCode).toBe(500);
    expect(result.headers?.["content-type"]).toBe("application/problem+json");
    const problem = JSON.parse(result.body!);
    expect(problem).toMatchObject({
      type: "about:blank",
      title: "Internal Server Error",
      status: 500,
      instance: "/probe",
    });
    expect(result.body).not.toContain("hunter2");
    expect(result.body).not.toContain("at ");
    expect(problem.correlationId).toBe(event.requestContext.requestId);
    expect(log.mock.calls.map((args) => String(args[0])).join("\n")).toContain(problem.correlationId);
    log.mockRestore();
  });

  it("maps typed domain errors to their status", async () => {
    const result = await call({ mode: "missing" });
    expect(result.statusCode).toBe(404);
    expect(JSON.parse(result.body!).detail).toBe("Probe p1 was not found.");
  });

  it("lists every offending field of an invalid body", async () => {
    const result = await call({ mode: "sideways", count: 1.5, extra: true });
    expect(result.statusCode).toBe(400);
    const pointers = JSON.parse(result.body!)
      .errors.map((error: { pointer: string }) => error.pointer)
      .sort();
    expect(pointers).toEqual(["/count", "/extra", "/mode"]);
  });

  it("counts the rate limit while a request reads, and lets it write only once admitted (429 and no write over the limit)", async () => {
    const previous = process.env.RATE_LIMIT_REQUESTS;
    process.env.RATE_LIMIT_REQUESTS = "1";
    try {
      const writes: string[] = [];
      const readsThenWrites = endpoint(
        probe,
        async ({ body, admitted }) => {
          await admitted();
          writes.push(body.mode);
          return { echoed: body };
        },
        { rateLimitWhileReading: true },
      );
      const sourceIp = `198.51.100.${Math.floor(Math.random() * 250)}`;
      const post = () =>
        readsThenWrites(apiEvent({ method: "POST", path: "/probe", body: { mode: "ok" }, sourceIp }), lambdaContext());
      const first = await post();
      const second = await post();
      expect(first.statusCode).toBe(201);
      expect(second.statusCode).toBe(429);
      expect(second.headers?.ratelimit).toMatch(/^"ip";r=0;t=\d+$/);
      expect(writes).toEqual(["ok"]);
    } finally {
      if (previous === undefined) delete process.env.RATE_LIMIT_REQUESTS;
      else process.env.RATE_LIMIT_REQUESTS = previous;
    }
  });
});
