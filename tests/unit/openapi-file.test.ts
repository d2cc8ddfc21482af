import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { webhookEventTypesPath } from "#core/webhooks/event-types-file";
import { openApiPath, renderOpenApi, renderWebhookEventTypes } from "#local/write-openapi";

describe("docs/openapi.json", () => {
  it("is the contract the code generates (run `npm run openapi` after changing an operation)", async () => {
    process.env.TOKEN_SIGNING_KEY ??= "unused";
    expect(await readFile(openApiPath, "utf8")).toBe(renderOpenApi());
  });

  it("is written with the webhook event catalogue GET /webhook-event-types serves, which the code generates too", async () => {
    expect(await readFile(webhookEventTypesPath, "utf8")).toBe(renderWebhookEventTypes());
  });

  it("passes Redocly's recommended lint with no error and no warning", async () => {
    // The locally installed CLI (exact devDependency), offline: no telemetry, no update check.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["node_modules/@redocly/cli/bin/cli.js", "lint", openApiPath, "--format=json"],
      {
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as {
      totals: { errors: number; warnings: number };
      problems: { message: string }[];
    };
    expect(report.problems.map((problem) => problem.message)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});

describe("the generated contract's shape", () => {
  const contract = () => {
    process.env.TOKEN_SIGNING_KEY ??= "unused";
    return JSON.parse(renderOpenApi()) as {
      paths: Record<string, Record<string, { parameters?: { in: string }[]; responses: Record<string, unknown> }>>;
    };
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
        .filter(([, operation]) =>
          (operation.parameters ?? []).some((parameter) => parameter.in === "path" || parameter.in === "query"),
        )
        .filter(([, operation]) => !("400" in operation.responses))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(undeclared).toEqual([]);
  });
});
