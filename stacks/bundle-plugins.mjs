// The esbuild plugins SST's build runs for every deployed function (`nodejs.plugins`, stacks/functions.ts). Plain
// JavaScript: SST loads this file in a bare Node process (.sst/platform/functions/nodejs-runtime/plugin.mjs).
import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const environmentCredentials = fileURLToPath(new URL("../core/db/environment-credentials.ts", import.meta.url));

/**
 * The SDK clients' default credential chain, bundled as the role's credentials from the environment (or Lambda's
 * container endpoint) alone: core/db/environment-credentials.ts says why. The path is matched in the callback, not
 * by `filter`: SST's relay tests each callback's filter against a field its messages never have, so a callback runs
 * there only when its filter matches the string "undefined", as this match-all one does.
 */
export const credentialsFromEnvironment = {
  name: "credentials-from-environment",
  setup(build) {
    build.onResolve({ filter: /.*/ }, (args) =>
      args.path === "@aws-sdk/credential-provider-node" ? { path: environmentCredentials } : undefined,
    );
  },
};

/**
 * valibot's functions that it declares free of side effects (each `/* @__NO_SIDE_EFFECTS__ *\/` in its bundle), by
 * the name it exports them under.
 */
function valibotFunctionsWithoutEffects() {
  const source = readFileSync(fileURLToPath(import.meta.resolve("valibot")), "utf8");
  const annotated = new Set(
    [...source.matchAll(/\/\* @__NO_SIDE_EFFECTS__ \*\/\s*(?:async\s+)?function\s+([\w$]+)/g)].map((match) => match[1]),
  );
  const exported = source.slice(source.lastIndexOf("export {") + "export {".length, source.lastIndexOf("}"));
  const names = new Set();
  for (const entry of exported.split(",")) {
    const [local, as] = entry.trim().split(/\s+as\s+/);
    if (local && annotated.has(local)) names.add(as ?? local);
  }
  return names;
}

/**
 * Every call of ours to a function declared free of side effects (`/* @__NO_SIDE_EFFECTS__ *\/`) in another module,
 * valibot's or our own, marked `/* @__PURE__ *\/` at the call, so a schema or entity no code of the Lambda uses is
 * left out of its bundle. esbuild honours the declaration only for calls in the same file (evanw/esbuild#4369):
 * without this, every schema declared at the top of a module the Lambda imports is bundled and built at its cold
 * start (a read carried its write's whole body schema, and libphonenumber with it). The calls are found with
 * TypeScript's parser (a call written in a comment or string is left alone), through named imports and namespace
 * imports (`import * as v from "valibot"`).
 */
export const pureCalls = {
  name: "pure-calls",
  setup(build) {
    const valibot = valibotFunctionsWithoutEffects();
    build.onLoad({ filter: /.*/ }, (args) => {
      if (!ownSource.test(args.path)) return undefined;
      const contents = annotatePureCalls(args.path, readFileSync(args.path, "utf8"), valibot);
      return {
        contents: operationsModule.test(args.path) ? withoutContractOnlyParts(args.path, contents) : contents,
        loader: "ts",
      };
    });
  },
};

const projectRoot = fileURLToPath(new URL("..", import.meta.url));

/** Our TypeScript sources (not node_modules). Matched in the callback, for the reason given at the top. */
const ownSource = new RegExp(
  `^${projectRoot.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:core|functions|stacks)[\\\\/].*\\.ts$`,
);

/** The file of one of our modules an import names (`#core/x`, `./x.ts`), or undefined for a package. */
function ownModule(importer, specifier) {
  const aliased = /^#(core|functions|stacks)\/(.+)$/.exec(specifier);
  if (aliased) return join(projectRoot, aliased[1], `${aliased[2]}.ts`);
  return specifier.startsWith(".") ? resolve(dirname(importer), specifier) : undefined;
}

/** Per module file: the names of the functions it exports declared `@__NO_SIDE_EFFECTS__`. */
const declaredPure = new Map();

function exportedPureFunctions(path) {
  const modified = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
  const known = declaredPure.get(path);
  if (known && known.modified === modified) return known.names;
  const names = new Set();
  if (modified !== undefined) {
    const text = readFileSync(path, "utf8");
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    for (const statement of file.statements)
      if (
        ts.isFunctionDeclaration(statement) &&
        statement.name &&
        statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword) &&
        text.slice(statement.getFullStart(), statement.getStart(file)).includes("@__NO_SIDE_EFFECTS__")
      )
        names.add(statement.name.text);
  }
  declaredPure.set(path, { modified, names });
  return names;
}

/** The modules that declare the HTTP operations (core/http/operations/*.ts). */
const operationsModule = /[\\/]core[\\/]http[\\/]operations[\\/][^\\/]+\.ts$/;

/**
 * An operations module without what only the contract reads: each operation's `success.schema` (the answer's schema)
 * and `example`, as `undefined`. The endpoint chain reads an operation's auth, permission, request schemas and success
 * status; the contract (core/http/openapi.ts) is built from the source by `npm run openapi` and served from
 * docs/openapi.json. A Lambda that reads automations no longer carries, through the answer's schema, every check of
 * an automation's definition (and libphonenumber with them), nor the examples' values.
 */
export function withoutContractOnlyParts(path, text) {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const replaced = [];
  const propertyOf = (object, name) =>
    object.properties.find(
      (property) => ts.isPropertyAssignment(property) && ts.isIdentifier(property.name) && property.name.text === name,
    );
  // What is replaced is not looked into: a range inside it would no longer be where it was.
  const replacedNodes = new Set();
  const visit = (node) => {
    if (replacedNodes.has(node)) return;
    // An operation's spec: the object literal that names its operationId.
    if (ts.isObjectLiteralExpression(node) && propertyOf(node, "operationId")) {
      const success = propertyOf(node, "success");
      const schema =
        success && ts.isObjectLiteralExpression(success.initializer)
          ? propertyOf(success.initializer, "schema")
          : undefined;
      for (const property of [schema, propertyOf(node, "example")])
        if (property) {
          replaced.push({ start: property.initializer.getStart(file), end: property.initializer.end });
          replacedNodes.add(property.initializer);
        }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let stripped = text;
  for (const { start, end } of replaced.sort((a, b) => b.start - a.start))
    stripped = `${stripped.slice(0, start)}undefined${stripped.slice(end)}`;
  return stripped;
}

/** `text` with `/* @__PURE__ *\/` before each call of an imported function declared free of side effects. */
export function annotatePureCalls(path, text, valibot) {
  if (!text.includes("valibot") && !text.includes("#") && !text.includes("./")) return text;
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  /** Local name of a namespace import → the pure names it holds; local name of a named import that is pure. */
  const namespaces = new Map();
  const named = new Set();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const specifier = statement.moduleSpecifier.text;
    const module = specifier === "valibot" ? undefined : ownModule(path, specifier);
    const pure = specifier === "valibot" ? valibot : module ? exportedPureFunctions(module) : undefined;
    const bindings = statement.importClause?.namedBindings;
    if (!pure || pure.size === 0 || !bindings) continue;
    if (ts.isNamespaceImport(bindings)) namespaces.set(bindings.name.text, pure);
    else
      for (const element of bindings.elements)
        if (pure.has((element.propertyName ?? element.name).text)) named.add(element.name.text);
  }
  // A name the file declares again (a parameter or local `v`, `text`…) may not be the import where it is called:
  // such a name is left alone throughout the file.
  for (const name of redeclaredNames(file)) {
    namespaces.delete(name);
    named.delete(name);
  }
  if (namespaces.size === 0 && named.size === 0) return text;
  const starts = [];
  const visit = (node) => {
    if (ts.isCallExpression(node) && !continuesChain(node)) {
      const callee = node.expression;
      const isPure = ts.isPropertyAccessExpression(callee)
        ? ts.isIdentifier(callee.expression) && namespaces.get(callee.expression.text)?.has(callee.name.text)
        : ts.isIdentifier(callee) && named.has(callee.text);
      if (isPure) starts.push(node.getStart(file));
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  let annotated = text;
  for (const start of starts.sort((a, b) => b - a))
    annotated = `${annotated.slice(0, start)}/* @__PURE__ */ ${annotated.slice(start)}`;
  return annotated;
}

/**
 * Whether a call is the start of a longer expression (`f().g()`, `f()[k]`, `f()()`, `f()!`, ``f()`…` ``): esbuild
 * reads a `/* @__PURE__ *\/` before it as marking the whole chain, which may have an effect of its own.
 */
function continuesChain(call) {
  const parent = call.parent;
  return (
    ((ts.isPropertyAccessExpression(parent) ||
      ts.isElementAccessExpression(parent) ||
      ts.isCallExpression(parent) ||
      ts.isNonNullExpression(parent)) &&
      parent.expression === call) ||
    (ts.isTaggedTemplateExpression(parent) && parent.tag === call)
  );
}

/** Names the file declares other than by an import: variables, parameters, functions, classes, destructured names. */
function redeclaredNames(file) {
  const names = new Set();
  const bind = (name) => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) || ts.isParameter(node) || ts.isBindingElement(node)) bind(node.name);
    else if ((ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node)) && node.name) names.add(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return names;
}

export default [credentialsFromEnvironment, pureCalls];
