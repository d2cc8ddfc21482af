import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { openApiPath, renderOpenApi } from "#local/write-openapi";

describe("docs/openapi.json", () => {
  it("is the contract the code generates (run `npm run openapi` after changing an operation)", async () => {
    process.env.TOKEN_SIGNING_KEY ??= "unused";
    expect(await readFile(openApiPath, "utf8")).toBe(renderOpenApi());
  });
});
