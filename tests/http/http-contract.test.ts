import { describe, expect, it } from "vitest";
import { maxBodyBytes } from "#core/http/request-input";
import { allOperations } from "#core/http/operations/index";
import { routes } from "#stacks/definitions";
import { newOrganization, request } from "#tests/helpers/stack";

const expectProblem = (response: { status: number; headers: Headers; body: any }, status: number) => {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/problem+json");
  expect(response.body).toMatchObject({ type: "about:blank", status });
  expect(typeof response.body.title).toBe("string");
  expect(typeof response.body.detail).toBe("string");
  expect(typeof response.body.instance).toBe("string");
};

describe("the HTTP contract", () => {
  it("answers an unknown route with a 404 problem", async () => {
    const response = await request("GET", "/no/such/route", { sourceIp: "192.0.2.10" });
    expectProblem(response, 404);
    expect(response.body.instance).toBe("/no/such/route");
  });

  it("answers a wrong method with 405 and an Allow header", async () => {
    const response = await request("PATCH", "/automations/abc", { sourceIp: "192.0.2.11" });
    expectProblem(response, 405);
    expect(response.headers.get("allow")?.split(", ").sort()).toEqual(["DELETE", "GET", "PUT"]);
  });

  it("answers malformed JSON with a 400 problem", async () => {
    const organization = await newOrganization();
    const response = await organization.request("POST", "/automations", {
      body: '{"name": "broken",',
      headers: { "content-type": "application/json" },
    });
    expectProblem(response, 400);
  });

  it("answers a wrong content type with 415 and accepts application/*+json", async () => {
    const organization = await newOrganization();
    const wrong = await organization.request("POST", "/automations", {
      body: JSON.stringify({ name: "x" }),
      headers: { "content-type": "text/plain" },
    });
    expectProblem(wrong, 415);
    const vendor = await organization.request("POST", "/automations", {
      body: JSON.stringify({ name: "Vendor media type" }),
      headers: { "content-type": "application/vnd.leads+json; charset=utf-8" },
    });
    expect(vendor.status).toBe(201);
  });

  it("answers an oversized body with 413", async () => {
    const organization = await newOrganization();
    const response = await organization.request("POST", "/automations", {
      body: JSON.stringify({ name: "big", description: "x".repeat(maxBodyBytes) }),
    });
    expectProblem(response, 413);
  });

  it("answers a missing body with a 400 problem", async () => {
    const organization = await newOrganization();
    const response = await organization.request("POST", "/automations", {
      headers: { "content-type": "application/json" },
    });
    expectProblem(response, 400);
  });

  it("sends rate-limit headers on success and on problems", async () => {
    const organization = await newOrganization();
    const ok = await organization.request("POST", "/automations/all/my", { body: {} });
    expect(ok.headers.get("ratelimit-policy")).toBe('"business";q=300;w=60');
    expect(ok.headers.get("ratelimit")).toMatch(/^"business";r=\d+;t=\d+$/);
    const notFound = await organization.request("GET", "/automations/missing");
    expect(notFound.headers.get("ratelimit")).toMatch(/^"business";r=\d+;t=\d+$/);
  });

  it("marks every answer, success, problem or download, as not to be cached or sniffed", async () => {
    const organization = await newOrganization();
    const answers = [
      await organization.request("POST", "/automations/all/my", { body: {} }),
      await organization.request("GET", "/automations/missing"),
      await organization.request("GET", "/analytics/my/export"),
      await request("GET", "/no/such/route", { sourceIp: "192.0.2.12" }),
      await request("GET", "/automations/abc", { sourceIp: "192.0.2.13" }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 404, 200, 404, 401]);
    for (const answer of answers) {
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("publishes an OpenAPI 3.1 document that lists exactly the served routes with their statuses", async () => {
    const response = await request("GET", "/openapi.json", { sourceIp: "192.0.2.12" });
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe("3.1.0");
    const documented = Object.entries(
      response.body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>,
    )
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`))
      .sort();
    const served = routes.map((route) => `${route.method} ${route.path}`).sort();
    expect(documented).toEqual(served);
    for (const operation of allOperations) {
      const responses = response.body.paths[operation.path][operation.method.toLowerCase()].responses;
      expect(Object.keys(responses)).toEqual(
        expect.arrayContaining([String(operation.success.status), ...operation.problems.map(String)]),
      );
    }
  });

  it("serves every route of the table by the documented operation of its operationId, once", async () => {
    const declared = allOperations.map((operation) => [operation.operationId, `${operation.method} ${operation.path}`]);
    const served = routes.map((route) => [route.operationId, `${route.method} ${route.path}`]);
    expect(declared.sort()).toEqual(served.sort());
    expect(new Set(served.map(([, routeKey]) => routeKey)).size).toBe(routes.length);
  });

  it("serves a valid public A2A agent card", async () => {
    const response = await request("GET", "/.well-known/agent-card.json", { sourceIp: "192.0.2.13" });
    expect(response.status).toBe(200);
    expect(response.headers.get("ratelimit-policy")).toBe('"ip";q=300;w=60');
    const card = response.body;
    expect(card).toMatchObject({
      name: expect.any(String),
      description: expect.any(String),
      url: expect.stringMatching(/\/a2a$/),
      version: expect.any(String),
      supportedInterfaces: expect.arrayContaining([
        expect.objectContaining({ protocolBinding: "JSONRPC", protocolVersion: "1.0" }),
      ]),
      capabilities: expect.any(Object),
      defaultInputModes: expect.arrayContaining(["text/plain"]),
      defaultOutputModes: expect.arrayContaining(["text/plain"]),
    });
    expect(card.securitySchemes.bearer).toMatchObject({ httpAuthSecurityScheme: { scheme: "bearer" } });
    expect(card.skills.length).toBeGreaterThan(0);
    for (const skill of card.skills)
      expect(skill).toMatchObject({
        id: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
      });
  });
});
