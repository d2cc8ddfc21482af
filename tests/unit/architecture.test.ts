import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The shape docs/architecture.md describes, checked on every run (issue 10):
 * only core/db and core/queue speak to AWS, aggregates ask each other instead
 * of reading each other's items, no runtime import cycle between core
 * packages, and no source file grows past what one reader holds in mind.
 */

const root = path.resolve(import.meta.dirname, "../..");
const coreDir = path.join(root, "core");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith(".ts") ? [full] : [];
  });
}

const coreFiles = sourceFiles(coreDir).map((file) => path.relative(root, file).split(path.sep).join("/"));

interface ImportEdge {
  /** The import as written (`#core/db/keys`, `@aws-sdk/lib-dynamodb`, `./cron`). */
  specifier: string;
  /** The repository path it resolves to, for project imports. */
  target?: string;
  /** Types only (erased at run time): `import type`, or every specifier marked `type`. */
  typeOnly: boolean;
}

function importsOf(file: string): ImportEdge[] {
  const source = ts.createSourceFile(file, readFileSync(path.join(root, file), "utf8"), ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, typeOnly: boolean) =>
    edges.push({ specifier, typeOnly, target: resolve(file, specifier) });
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const allTypes =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          !clause.name &&
          bindings !== undefined &&
          ts.isNamedImports(bindings) &&
          bindings.elements.length > 0 &&
          bindings.elements.every((element) => element.isTypeOnly));
      add(node.moduleSpecifier.text, allTypes);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      ts.isStringLiteral(node.arguments[0]!)
    ) {
      // A lazy import still runs the module when reached: it counts as a runtime edge.
      add((node.arguments[0] as ts.StringLiteral).text, false);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, true);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function resolve(from: string, specifier: string): string | undefined {
  const withExtension = (base: string) => (base.endsWith(".ts") ? base : `${base}.ts`);
  if (specifier.startsWith("#core/")) return withExtension(`core/${specifier.slice("#core/".length)}`);
  if (specifier.startsWith("#stacks/")) return withExtension(`stacks/${specifier.slice("#stacks/".length)}`);
  if (specifier.startsWith(".")) return withExtension(path.posix.join(path.posix.dirname(from), specifier));
  return undefined;
}

/** The package of a core file: its first directory under core/ (`core/leads/index.ts` → `leads`), or the file itself. */
function packageOf(file: string): string {
  const [, first, second] = file.split("/");
  return second === undefined ? first!.replace(/\.ts$/, "") : first!;
}

const imports = new Map(coreFiles.map((file) => [file, importsOf(file)]));

describe("architecture (docs/architecture.md)", () => {
  it("only core/db and core/queue import the AWS SDK", () => {
    const offenders = coreFiles.filter(
      (file) =>
        !file.startsWith("core/db/") &&
        !file.startsWith("core/queue/") &&
        imports.get(file)!.some((edge) => edge.specifier.startsWith("@aws-sdk/")),
    );
    expect(offenders).toEqual([]);
  });

  it("no aggregate imports another aggregate's store", () => {
    const offenders = coreFiles.flatMap((file) =>
      imports
        .get(file)!
        .filter(
          (edge) =>
            edge.target &&
            /\/store\.ts$/.test(edge.target) &&
            edge.target.startsWith("core/") &&
            packageOf(edge.target) !== packageOf(file),
        )
        .map((edge) => `${file} → ${edge.target}`),
    );
    expect(offenders).toEqual([]);
  });

  it("no aggregate builds another aggregate's keys", () => {
    // Each key builder lives in the key module of the aggregate that owns the item (core/db/keys/<aggregate>.ts), or
    // beside its entities (core/db/entities/<aggregate>.ts), in that file's `<aggregate>Keys` object.
    const owners = new Map<string, string>();
    for (const file of [
      ...sourceFiles(path.join(coreDir, "db/keys")),
      ...sourceFiles(path.join(coreDir, "db/entities")),
    ]) {
      const aggregate = path.basename(file, ".ts");
      const text = readFileSync(file, "utf8");
      const builders =
        /^export const \w+Keys = \{$([\s\S]*?)^\};$/m.exec(text)?.[1] ?? (file.includes("/keys/") ? text : "");
      for (const [, name] of builders.matchAll(/^\s{2}(\w+)(?::|\()/gm)) owners.set(name!, aggregate);
    }
    expect(owners.size).toBeGreaterThan(20);
    const shared = new Set(["shared", "index"]);
    const offenders = coreFiles
      .filter(
        (file) =>
          !file.startsWith("core/db/") && !file.startsWith("core/http/") && !file.startsWith("core/maintenance/"),
      )
      .flatMap((file) => {
        const text = readFileSync(path.join(root, file), "utf8");
        return [...text.matchAll(/\bkeys\.(\w+)\b/g)].flatMap(([, name]) => {
          const owner = owners.get(name!);
          return owner && !shared.has(owner) && owner !== packageOf(file)
            ? [`${file} uses keys.${name} (${owner})`]
            : [];
        });
      });
    expect([...new Set(offenders)]).toEqual([]);
  });

  it("has no runtime import cycle between core packages", () => {
    const graph = new Map<string, Set<string>>();
    for (const [file, edges] of imports) {
      for (const edge of edges) {
        if (edge.typeOnly || !edge.target?.startsWith("core/")) continue;
        const [from, to] = [packageOf(file), packageOf(edge.target)];
        if (from !== to) (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(to);
      }
    }
    expect(cyclesOf(graph)).toEqual([]);
  });

  it("leaves expression strings and physical index names to core/db (entities, issue 26)", () => {
    // Every aggregate states its conditions, changes and reads through its entity (core/db/entity.ts,
    // core/db/entities/*): no expression string and no gsiNpk/gsiNsk name outside core/db.
    const storage = /\b(Update|Condition|KeyCondition|Filter|Projection)Expression\b|gsi\d(pk|sk)/;
    const writesStorage = coreFiles.filter(
      (file) => !file.startsWith("core/db/") && storage.test(readFileSync(path.join(root, file), "utf8")),
    );
    expect(writesStorage).toEqual([]);
  });

  it("names transaction parts instead of reading positions: failedIndexes stays inside core/db", () => {
    const positional = coreFiles.filter(
      (file) => !file.startsWith("core/db/") && /\bfailedIndexes\b/.test(readFileSync(path.join(root, file), "utf8")),
    );
    expect(positional).toEqual([]);
  });

  it("keeps JSON pointers (an HTTP notion) out of the domain", () => {
    const offenders = coreFiles.filter(
      (file) =>
        !file.startsWith("core/http/") &&
        /["'`]\/(path|query|body)\//.test(readFileSync(path.join(root, file), "utf8")),
    );
    expect(offenders).toEqual([]);
  });
});

/** Each strongly connected group of more than one package (Tarjan), as a sorted list. */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return groups;
}
