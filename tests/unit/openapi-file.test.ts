import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { openApiPath, renderOpenApi } from "#local/write-openapi";

describe("docs/openapi.json", () => {
  it("is the contract the code generates (run `npm run openapi` after changing an operation)", async () => {
    process.env.TOKEN_SIGNING_KEY ??= "unused";
    expect(await readFile(openApiPath, "utf8")).toBe(renderOpenApi());
  });
});

describe("the generated contract's shape", () => {
  const contract = () => {
    process.env.TOKEN_SIGNING_KEY ??= "unused";
    return JSON.parse(renderOpenApi()) as { paths: Record<string, Record<string, { parameters?: { in: string }[]; responses: Record<string, unknown> }>> };
  };

  it("describes every tag an operation uses", () => {
    const document = contract() as unknown as { tags: { name: string; description?: string }[] };
    expect(document.tags.filter((tag) => !tag.description).map((tag) => tag.name)).toEqual([]);
  });

  it("has no two paths that differ only in their parameter names (ambiguous routes for generators)", () => {
    const templates = Object.keys(contract().paths).map((path) => path.replace(/\{[^}]+\}/g, "{}"));
    expect(templates.filter((template, index) => templates.indexOf(template) !== index)).toEqual([]);
  });

  it("declares 400 on every operation that takes a path parameter, a query or a body", () => {
    const undeclared = Object.entries(contract().paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) => (operation.parameters ?? []).some((parameter) => parameter.in === "path" || parameter.in === "query"))
        .filter(([, operation]) => !("400" in operation.responses))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undeclared).toEqual([]);
  });
});
