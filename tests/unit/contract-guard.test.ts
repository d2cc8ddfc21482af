import { describe, expect, it } from "vitest";
import { contractViolations } from "#tests/helpers/contract";

const problem = {
  type: "about:blank",
  title: "Not Found",
  status: 404,
  detail: "No automation.",
  instance: "/automations/x",
};

describe("the contract guard of the HTTP tests (tests/helpers/contract.ts)", () => {
  it("accepts a declared status, content type and valid body", () => {
    expect(contractViolations("GET", "/automations/x", 404, "application/problem+json", problem)).toEqual([]);
  });

  it("reports an undeclared status, an undeclared content type and an invalid body", () => {
    expect(contractViolations("GET", "/automations/x", 418, "application/problem+json", problem)).toEqual([
      expect.stringMatching(/status 418 is not declared/),
    ]);
    expect(contractViolations("GET", "/automations/x", 404, "text/html", "<h1>no</h1>")).toEqual([
      expect.stringMatching(/content type text\/html is not declared/),
    ]);
    expect(
      contractViolations("GET", "/automations/x", 404, "application/problem+json", { ...problem, status: "404" }),
    ).toEqual([expect.stringMatching(/body\/status must be integer/)]);
    expect(
      contractViolations("GET", "/automations/x", 200, "application/json", { id: "x", createdAt: "yesterday" }),
    ).not.toEqual([]);
  });

  it("allows the gateway's own problems on any route and requires a problem on unknown routes", () => {
    expect(
      contractViolations("GET", "/automations/x", 414, "application/problem+json", {
        ...problem,
        status: 414,
        title: "URI Too Long",
      }),
    ).toEqual([]);
    expect(contractViolations("GET", "/nowhere", 404, "application/json", { message: "Not Found" })).toEqual([
      expect.stringMatching(/unmatched route must answer application\/problem\+json/),
    ]);
  });
});
