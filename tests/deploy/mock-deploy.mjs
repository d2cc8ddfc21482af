#!/usr/bin/env node
/**
 * Runs the real `sst.config.ts` through SST's own component code under Pulumi mocks (`runtime.setMocks`): no Pulumi
 * engine, no AWS account, nothing downloaded. Every resource the components register is recorded with its inputs
 * and written as JSON, which tests/deploy/*.test.ts assert on.
 *
 *   node tests/deploy/mock-deploy.mjs <stage> <out.json>
 *
 * It stands in for the SST CLI (Go), so it depends on three of its internals, pinned to one SST version below:
 * how the CLI bundles `sst.config.ts` (pkg/project/stack.go, pkg/js/js.go: the `$app`/`$cli`/`$dev` defines, the
 * platform shim, the `aws`/`sst` globals), the RPC components call back into the CLI (`Provider.Aws.Bootstrap`,
 * `Runtime.Build`), and how a Node function is built (pkg/runtime/node/build.go, redone here with esbuild).
 * Run one stage per process: Pulumi's runtime settings are global.
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The SST version whose CLI internals this file re-implements: a different one fails here, not with a subtly wrong graph. */
export const pinnedSstVersion = "3.18.10";

const root = resolve(import.meta.dirname, "../..");
const platform = join(root, ".sst", "platform");
const [stage, outFile] = process.argv.slice(2);
if (!stage || !outFile) throw new Error("usage: node tests/deploy/mock-deploy.mjs <stage> <out.json>");

const installed = JSON.parse(readFileSync(join(root, "node_modules/sst/package.json"), "utf8")).version;
if (installed !== pinnedSstVersion) {
  throw new Error(
    `tests/deploy/mock-deploy.mjs re-implements SST ${pinnedSstVersion}'s CLI internals; sst ${installed} is installed. ` +
      "Check pkg/project/stack.go, pkg/js/js.go and pkg/runtime/node/build.go of the new version, then update pinnedSstVersion.",
  );
}
if (!existsSync(join(platform, "node_modules/@pulumi/pulumi")))
  throw new Error("No .sst/platform: run `npm run typecheck:infra` first");

/** Where this stage's program, function bundles and packages go (inside .sst, so platform packages resolve). */
const work = join(platform, "deploy-test", stage);
/** Function bundles shared by the stages of one run (tests/deploy/setup.ts empties it first): the same handler and options bundle the same. */
const bundleCache = join(root, ".sst", "deploy-test", "bundles");
const account = "123456789012";
const region = "us-east-1";

// --- the app's own `app()` for this stage (removal, protect, providers), evaluated as the CLI does before `run()`
async function appConfig() {
  const file = join(work, "app.mjs");
  await build({
    stdin: {
      contents: `import config from ${JSON.stringify(join(root, "sst.config.ts"))};\nexport const app = config.app;`,
      resolveDir: root,
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: file,
    logLevel: "error",
    banner: { js: "const $config = (config) => config;" },
  });
  const { app } = await import(pathToFileURL(file).href);
  return { ...(await app({ stage })), stage };
}

// --- sst.config.ts bundled as the CLI does for `sst deploy`
async function bundleProgram(app) {
  const cli = {
    command: "deploy",
    dev: false,
    paths: { home: join(work, "home"), root, work: join(root, ".sst"), platform },
    state: { version: {} },
  };
  const globals = `import * as aws from "@pulumi/aws";\nimport * as sst from "${platform}/src/components";`;
  const outfile = join(work, "eval.mjs");
  await build({
    stdin: {
      contents: `import { run } from "${platform}/src/auto/run.ts";\nimport mod from "${root}/sst.config.ts";\nexport async function main() { return run(mod.run); }\n`,
      resolveDir: root,
      sourcefile: "eval.ts",
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    mainFields: ["module", "main"],
    nodePaths: [join(platform, "node_modules")],
    external: [
      "@pulumi/*",
      "undici",
      "@pulumiverse/*",
      "@sst-provider/*",
      "@aws-sdk/*",
      "esbuild",
      "archiver",
      "glob",
      "vite",
    ],
    outfile,
    define: { $app: JSON.stringify(app), $cli: JSON.stringify(cli), $dev: "false" },
    inject: [join(platform, "src/shim/run.js")],
    banner: { js: esmBanner },
    plugins: [
      {
        name: "InjectGlobals",
        setup(b) {
          b.onLoad({ filter: /\.(js|ts|jsx|tsx)$/ }, async (args) => {
            const contents = readFileSync(args.path, "utf8");
            return { contents: args.path.includes(".sst") ? contents : `${globals}\n${contents}`, loader: "default" };
          });
        },
      },
    ],
    logLevel: "error",
  });
  return outfile;
}

const esmBanner = [
  "import { createRequire as topLevelCreateRequire } from 'module';",
  "const require = topLevelCreateRequire(import.meta.url);",
  'import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"',
  "const __filename = topLevelFileUrlToPath(import.meta.url)",
  'const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))',
].join("\n");

// --- Runtime.Build: what pkg/runtime/node/build.go does for a deploy (ESM bundle with its banner, out/<path>.mjs,
// and its chunks beside it when split)
const handlerExtensions = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

/**
 * `nodejs.plugins` as the CLI runs them: it loads the file (a path from the project root) in a bare Node process
 * (.sst/platform/functions/nodejs-runtime/plugin.mjs) and relays every resolve and load to it. That relay gives a
 * plugin only `onResolve`, `onLoad` and `onEnd`, and tests each callback's `filter` against the relayed message's
 * `path`, which it never has: a callback runs only when its filter matches the string "undefined". Built the same
 * way here, so a plugin that counts on its filter does in this deploy what it would do in a real one.
 */
async function relayedPlugins(file) {
  if (!file) return [];
  const { default: plugins } = await import(pathToFileURL(join(root, file)).href);
  const relayed = (filter) => new RegExp(filter).test(undefined);
  return plugins.map((plugin) => ({
    name: plugin.name,
    setup(build) {
      plugin.setup({
        onResolve: (options, callback) =>
          build.onResolve({ filter: /.*/ }, (args) => (relayed(options.filter) ? callback(args) : undefined)),
        onLoad: (options, callback) =>
          build.onLoad({ filter: /.*/ }, (args) => (relayed(options.filter) ? callback(args) : undefined)),
        onEnd: (callback) => build.onEnd(callback),
      });
    },
  }));
}
const builds = [];
async function runtimeBuild(input) {
  const dot = input.handler.lastIndexOf(".");
  const base = input.handler.slice(0, dot);
  const ext = handlerExtensions.find((e) => existsSync(join(root, base + e)));
  if (!ext) return { handler: "", out: "", errors: [`Handler not found: ${input.handler}`], sourcemaps: [] };
  const nodejs = input.properties ?? {};
  const out = join(work, "artifacts", `${input.functionID}-src`);
  const key = createHash("sha256")
    .update(JSON.stringify([input.handler, input.runtime, nodejs]))
    .digest("hex")
    .slice(0, 16);
  const cached = join(bundleCache, key);
  if (!existsSync(join(cached, base + ".mjs"))) {
    const result = await build({
      entryPoints: [join(root, base + ext)],
      platform: "node",
      bundle: true,
      format: "esm",
      // build.go's targetMap: the function's runtime decides (ES2023 for nodejs22.x and nodejs20.x, the stack's).
      target: { "nodejs18.x": "es2022" }[input.runtime] ?? "es2023",
      keepNames: true,
      mainFields: ["module", "main"],
      external: ["sharp", "pg-native", ...(nodejs.install ?? []), ...(nodejs.esbuild?.external ?? [])],
      // With `nodejs.splitting` the CLI bundles into the entry's directory instead (entry `<base>.mjs`, chunks beside
      // it, named `.mjs` too), and the package holds all of them.
      ...(nodejs.splitting
        ? { splitting: true, outdir: dirname(join(cached, base + ".mjs")), outExtension: { ".js": ".mjs" } }
        : { outfile: join(cached, base + ".mjs") }),
      // build.go minifies only when the property is set (its Go bool is false when absent), whatever the docs say.
      minify: nodejs.minify === true,
      logLevel: "silent",
      banner: { js: esmBanner },
      plugins: await relayedPlugins(nodejs.plugins),
    }).catch((error) => ({ errors: error.errors ?? [{ text: String(error) }] }));
    if (result.errors?.length) return { handler: "", out, errors: result.errors.map((e) => e.text), sourcemaps: [] };
  }
  rmSync(out, { recursive: true, force: true });
  cpSync(cached, out, { recursive: true });
  // The CLI copies `copyFiles` (already resolved to absolute sources by the component) into the package.
  for (const file of input.copyFiles ?? []) cpSync(file.from, join(out, file.to), { recursive: true });
  builds.push({
    functionID: input.functionID,
    handler: input.handler,
    out,
    bundle: join(out, base + ".mjs"),
    minified: nodejs.minify === true,
  });
  return { handler: input.handler, out, errors: [], sourcemaps: [] };
}

/** Bundles run two at a time (the machine has two cores); Pulumi asks for all 80-odd at once. */
const buildSlots = 2;
let running = 0;
const queued = [];
async function limited(task) {
  if (running >= buildSlots) await new Promise((go) => queued.push(go));
  running++;
  try {
    return await task();
  } finally {
    running--;
    queued.shift()?.();
  }
}

// --- the CLI's RPC server, as far as a deploy of this app uses it
let rpcErrors = [];
async function serveRpc() {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", async () => {
      const { method, params } = JSON.parse(body);
      const args = params?.[0] ?? {};
      let result, error;
      try {
        if (method === "Provider.Aws.Bootstrap") {
          result = {
            asset: "sst-asset-mock",
            assetEcrRegistryId: account,
            assetEcrUrl: `${account}.dkr.ecr.${region}.amazonaws.com/sst-asset`,
            state: "sst-state-mock",
            appsyncHttp: "",
            appsyncRealtime: "",
          };
        } else if (method === "Runtime.Build") {
          result = await limited(() => runtimeBuild(args));
          if (result.errors.length) rpcErrors.push(`${args.handler}: ${result.errors.join("; ")}`);
        } else error = `rpc: can't find method ${method}`;
      } catch (e) {
        error = String(e?.stack ?? e);
      }
      if (error) rpcErrors.push(`${method}: ${error}`);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ result, error }));
    });
  });
  await new Promise((listening) => server.listen(0, "127.0.0.1", listening));
  process.env.SST_SERVER = `http://127.0.0.1:${server.address().port}`;
  return server;
}

// --- physical attributes AWS would return, so dependent resources get ARNs and names to reference
const arn = (service, rest) => `arn:aws:${service}:${region}:${account}:${rest}`;
function physicalState(type, name, inputs) {
  const physical = `${name}-mock`;
  const state = { ...inputs };
  switch (type) {
    case "aws:sqs/queue:Queue":
      return {
        ...state,
        arn: arn("sqs", physical),
        url: `https://sqs.${region}.amazonaws.com/${account}/${physical}`,
        name: physical,
      };
    case "aws:dynamodb/table:Table":
      return {
        ...state,
        arn: arn("dynamodb", `table/${physical}`),
        name: physical,
        streamArn: arn("dynamodb", `table/${physical}/stream/2025-01-01T00:00:00.000`),
      };
    case "aws:lambda/function:Function":
      return {
        ...state,
        arn: arn("lambda", `function:${physical}`),
        name: physical,
        invokeArn: `arn:aws:apigateway:${region}:lambda:path/2015-03-31/functions/${arn("lambda", `function:${physical}`)}/invocations`,
      };
    case "aws:iam/role:Role":
      return { ...state, arn: `arn:aws:iam::${account}:role/${physical}`, name: physical };
    case "aws:apigatewayv2/api:Api":
      return {
        ...state,
        apiEndpoint: `https://abc123.execute-api.${region}.amazonaws.com`,
        executionArn: `arn:aws:execute-api:${region}:${account}:abc123`,
      };
    case "aws:cloudwatch/eventRule:EventRule":
      return { ...state, arn: arn("events", `rule/${physical}`), name: physical };
    case "aws:cloudwatch/logGroup:LogGroup":
      return { ...state, arn: arn("logs", `log-group:${inputs.name ?? physical}`) };
    case "aws:lambda/functionUrl:FunctionUrl":
      // The identity provider's issuer is reached at its function URL (sst.aws.Auth without a domain).
      return { ...state, functionUrl: `https://${physical}.lambda-url.${region}.on.aws/`, urlId: physical };
    case "aws:sns/topic:Topic":
      return { ...state, arn: arn("sns", physical), name: physical };
    case "random:index/randomBytes:RandomBytes":
      return { ...state, base64: Buffer.alloc(32, 7).toString("base64"), hex: "07".repeat(32) };
    default:
      return { ...state, arn: state.arn ?? arn("mock", physical), name: state.name ?? inputs.name ?? physical };
  }
}

/** Pulumi wraps secret values as `{ <sig>: <secret sig>, value }`: the graph records the value. */
function unwrapSecrets(value) {
  if (Array.isArray(value)) return value.map(unwrapSecrets);
  if (value && typeof value === "object") {
    if ("value" in value && Object.keys(value).length === 2) return unwrapSecrets(value.value);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unwrapSecrets(v)]));
  }
  return value;
}

const pulumi = createRequire(join(platform, "package.json"))("@pulumi/pulumi");
const resources = [];
await pulumi.runtime.setMocks(
  {
    newResource({ type, name, inputs, custom }) {
      resources.push({ type, name, inputs, custom });
      return {
        id: type === "aws:apigatewayv2/api:Api" ? "abc123" : `${name}-mock-id`,
        state: physicalState(type, name, inputs),
      };
    },
    call({ token, inputs }) {
      switch (token) {
        case "aws:index/getRegion:getRegion":
          return { name: region, id: region, region };
        case "aws:index/getPartition:getPartition":
          return { partition: "aws", id: "aws", dnsSuffix: "amazonaws.com" };
        case "aws:index/getCallerIdentity:getCallerIdentity":
          return { accountId: account, arn: `arn:aws:iam::${account}:user/mock`, userId: "mock", id: account };
        case "aws:iam/getPolicyDocument:getPolicyDocument": {
          // The IAM document as the provider renders it (conditions included, so a trust policy's narrowing shows).
          const statements = (inputs.statements ?? []).map((s) => ({
            Effect: s.effect ?? "Allow",
            Action: s.actions,
            Resource: s.resources,
            ...(s.principals
              ? { Principal: Object.fromEntries(s.principals.map((p) => [p.type, p.identifiers])) }
              : {}),
            ...(s.conditions
              ? { Condition: Object.fromEntries(s.conditions.map((c) => [c.test, { [c.variable]: c.values }])) }
              : {}),
          }));
          return {
            json: JSON.stringify({ Version: "2012-10-17", Statement: statements }),
            id: "policy",
            statements: inputs.statements,
          };
        }
        default:
          return {};
      }
    },
  },
  "lead-messaging-api",
  stage,
  false,
);

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const app = await appConfig();
const program = await bundleProgram(app);
const server = await serveRpc();
let failure;
try {
  const { main } = await import(pathToFileURL(program).href);
  await pulumi.runtime.runInPulumiStack(main);
  // Applies register resources after the program returns (functions after their builds): wait until no RPC is left.
  await pulumi.runtime.disconnect();
} catch (error) {
  failure = String(error?.stack ?? error);
}
server.close();
mkdirSync(dirname(outFile), { recursive: true });
const plain = (value) =>
  JSON.parse(JSON.stringify(value, (_, x) => (x && typeof x === "object" && "__pulumiOutput" in x ? "<output>" : x)));
writeFileSync(
  outFile,
  JSON.stringify({ stage, app, failure, rpcErrors, resources: unwrapSecrets(plain(resources)), builds }, null, 1),
);
console.log(
  `${stage}: ${resources.length} resources, ${builds.length} function builds${failure ? `; FAILED: ${failure.slice(0, 500)}` : ""}`,
);
process.exit(failure ? 1 : 0);
