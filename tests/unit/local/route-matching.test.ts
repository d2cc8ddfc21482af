import { describe, expect, it } from "vitest";
import { routeMatcher } from "#local/apigateway";
import type { RouteEntry } from "#stacks/definitions";

describe("local API Gateway route matching", () => {
  const routes: RouteEntry[] = [
    { method: "GET", path: "/automations/{id}", handler: "functions/automations/get.handler" },
    { method: "POST", path: "/automations/all/my", handler: "functions/automations/list.handler" },
    { method: "POST", path: "/automations/{id}", handler: "functions/automations/run.handler" },
    { method: "GET", path: "/files/{path+}", handler: "functions/files/get.handler" },
  ];
  const match = routeMatcher(routes);

  it("prefers a static segment over a path parameter, like API Gateway", () => {
    expect(match("POST", "/automations/all/my")?.route.handler).toBe("functions/automations/list.handler");
    expect(match("POST", "/automations/all")?.pathParameters).toEqual({ id: "all" });
  });

  it("decodes path parameters, matches whole segments and lets a greedy parameter take the rest", () => {
    expect(match("GET", "/automations/a%2Fb")?.pathParameters).toEqual({ id: "a/b" });
    expect(match("GET", "/automations/")).toBeUndefined();
    expect(match("GET", "/automations/1/extra")).toBeUndefined();
    expect(match("GET", "/files/a/b.txt")?.pathParameters).toEqual({ path: "a/b.txt" });
  });

  it("leaves a wrong method or unknown path to $default", () => {
    expect(match("DELETE", "/automations/1")).toBeUndefined();
    expect(match("GET", "/nothing-here")).toBeUndefined();
  });
});
