import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { bundle } from "#bench/coldstart";
import { annotatePureCalls, withoutContractOnlyParts } from "../../stacks/bundle-plugins.mjs";

/**
 * The stack's build marks each call of a function declared free of side effects in another module (valibot's, and
 * ours marked `@__NO_SIDE_EFFECTS__`) as pure at the call (stacks/bundle-plugins.mjs), which esbuild does not do
 * itself: so a Lambda's bundle leaves out the schemas and entities its code never uses. And an operation's answer
 * schema and example, which only the contract reads, are left out of every bundle.
 */

const dir = mkdtempSync(join(tmpdir(), "bundle-pure-calls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const pure = "/* @__PURE__ */";
const valibot = new Set(["object", "string", "pipe", "minLength", "safeParse"]);

describe("calls marked pure", () => {
  it("marks valibot calls through the namespace and named imports, not one in a comment, a string or left unnamed", () => {
    const source = [
      'import * as v from "valibot";',
      'import { string as text, parse } from "valibot";',
      "/** Build it with v.object({ a: v.string() }). */",
      "export const A = v.object({ a: v.pipe(v.string(), v.minLength(1)) });",
      "export const B = text();",
      'export const help = "write v.string() here";',
      "export const C = parse(A, {});",
    ].join("\n");
    const annotated = annotatePureCalls(resolve("core/example.ts"), source, valibot);
    expect(annotated.split("\n")).toEqual([
      'import * as v from "valibot";',
      'import { string as text, parse } from "valibot";',
      "/** Build it with v.object({ a: v.string() }). */",
      `export const A = ${pure} v.object({ a: ${pure} v.pipe(${pure} v.string(), ${pure} v.minLength(1)) });`,
      `export const B = ${pure} text();`,
      'export const help = "write v.string() here";',
      "export const C = parse(A, {});",
    ]);
  });

  it("leaves a call that starts a longer expression, and a name the file declares again", () => {
    const chained = [
      'import * as v from "valibot";',
      "export const ok = v.safeParse(v.string(), 1).success;",
      "export const listed = v.pipe(v.string())!;",
    ].join("\n");
    expect(annotatePureCalls(resolve("core/example.ts"), chained, valibot).split("\n")).toEqual([
      'import * as v from "valibot";',
      `export const ok = v.safeParse(${pure} v.string(), 1).success;`,
      `export const listed = v.pipe(${pure} v.string())!;`,
    ]);
    const shadowed = ['import * as v from "valibot";', "export const of = (v: { string(): string }) => v.string();"];
    expect(annotatePureCalls(resolve("core/example.ts"), shadowed.join("\n"), valibot)).toBe(shadowed.join("\n"));
  });

  it("marks a call of our own function declared free of side effects in the module it is imported from", () => {
    const path = resolve("core/shared/phone-input.ts");
    const annotated = annotatePureCalls(path, readFileSync(path, "utf8"), valibot);
    // core/shared/validation.ts declares statedShape @__NO_SIDE_EFFECTS__; decodePhoneInput is not declared so.
    expect(annotated).toContain(`${pure} statedShape(`);
    expect(annotated).not.toContain(`${pure} decodePhoneInput(`);
  });
});

describe("an operation's contract-only parts", () => {
  it("are undefined in the source a bundle is built from, and nothing else of the operation is", () => {
    const source = [
      "export const getThing = defineOperation({",
      '  operationId: "getThing",',
      "  body: ThingRequestSchema,",
      '  success: { status: 200, description: "The thing", schema: pageSchema(ThingSchema) },',
      '  example: Object.assign({}, thingExample, { operationId: "nested", example: 1 }),',
      "});",
      "const Params = v.object({ example: v.string(), schema: v.string() });",
    ].join("\n");
    expect(withoutContractOnlyParts(resolve("core/http/operations/things.ts"), source).split("\n")).toEqual([
      "export const getThing = defineOperation({",
      '  operationId: "getThing",',
      "  body: ThingRequestSchema,",
      '  success: { status: 200, description: "The thing", schema: undefined },',
      "  example: undefined,",
      "});",
      "const Params = v.object({ example: v.string(), schema: v.string() });",
    ]);
  });

  it("leave a bundled operation its route, auth, request schemas and status", async () => {
    const entry = `
      import { getAutomation } from "#core/http/operations/automations";
      const { method, path, auth, permission, params, success } = getAutomation;
      console.log(JSON.stringify({ method, path, auth, permission, params: params?.type, success }));
    `;
    const built = await bundle("", join(dir, "operation.mjs"), { fromStdin: entry });
    const { stdout } = await promisify(execFile)(process.execPath, [built.entryFile], { encoding: "utf8" });
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({
      method: "GET",
      path: "/automations/{id}",
      auth: "bearer",
      permission: "automations:read",
      params: "object",
      success: { status: 200, description: "The automation" },
    });
  });
});

describe("what a deployed bundle leaves out and keeps", () => {
  it.each(["get", "delete"])(
    "leaves the %s of an automation without the definition's checks and libphonenumber",
    async (operation) => {
      const built = await bundle(resolve(`functions/automations/${operation}.ts`), join(dir, `${operation}.mjs`));
      const inputs = Object.entries(built.coldInputs)
        .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
        .map(([input]) => input);
      expect(inputs).toContain("core/automations/automations.ts");
      expect(inputs.filter((input) => /libphonenumber-js|automations\/definition\/actions/.test(input))).toEqual([]);
    },
  );

  it.each(["create", "update"])(
    "leaves the egress guard out of the cold start of an automation's %s: a definition with an HttpRequest loads it",
    async (operation) => {
      const built = await bundle(
        resolve(`functions/automations/${operation}.ts`),
        join(dir, operation, `${operation}.mjs`),
        {
          splitting: true,
        },
      );
      const cold = Object.keys(built.coldInputs);
      expect(cold).toContain("core/automations/automations.ts");
      expect(cold.filter((input) => /ipaddr\.js|automations\/runs\/egress/.test(input))).toEqual([]);
      const everywhere = Object.values(built.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
      expect(everywhere).toContain("core/automations/runs/egress.ts");
    },
  );

  it.each(["leads/get", "consumers/outbound-messages"])(
    "leaves the bench's call counting out of the cold start of %s (loaded only when measuring)",
    async (handler) => {
      const name = handler.replace("/", "-");
      const built = await bundle(resolve(`functions/${handler}.ts`), join(dir, name, `${handler.split("/")[1]}.mjs`), {
        splitting: true,
      });
      expect(Object.keys(built.coldInputs)).toContain("core/observability/measuring.ts");
      expect(Object.keys(built.coldInputs)).not.toContain("core/observability/call-count.ts");
    },
  );

  it("keeps every check of a schema the bundle uses", async () => {
    const entry = `
      import * as v from "valibot";
      import { AutomationRequestSchema } from "#core/automations/index";
      const action = { id: "a1", type: "PlaceCall", settings: { connectTo: "+1555" } };
      const body = { name: "n", enabled: false, actions: [action] };
      const result = v.safeParse(AutomationRequestSchema, body);
      console.log(JSON.stringify(result.success ? [] : result.issues.map((issue) => issue.message)));
    `;
    const built = await bundle("", join(dir, "schema.mjs"), { fromStdin: entry });
    const { stdout } = await promisify(execFile)(process.execPath, [built.entryFile], { encoding: "utf8" });
    expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toContain(
      "Must be a phone number in E.164 form, such as +14155550123.",
    );
  });
});
