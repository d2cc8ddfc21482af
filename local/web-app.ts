import { readdir, readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import type { OutgoingResponse } from "#local/apigateway";
import { projectRoot } from "#local/paths";
import { dashboardHeaders } from "#stacks/web-headers";

/** Where the dashboard is served by the local stack (a deployed stage serves it from its own static site). */
export const appPath = "/app";
const webRoot = join(projectRoot, "web");
const distDir = join(webRoot, "dist");

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".json": "application/json",
};

/**
 * Builds the dashboard (Vite) when web/dist is missing or older than a source file,
 * so a fresh clone's `npm start` and `npm test` serve the current app with nothing
 * built committed. A build takes about a second.
 */
export async function ensureWebBuild(log: (line: string) => void = () => undefined): Promise<void> {
  const built = await stat(join(distDir, "index.html")).catch(() => undefined);
  if (built && (await newestSource()) <= built.mtimeMs) return;
  const { build } = await import("vite");
  const started = Date.now();
  await build({ configFile: join(webRoot, "vite.config.ts"), logLevel: "warn" });
  log(`dashboard built in ${Date.now() - started} ms`);
}

async function newestSource(): Promise<number> {
  const files = [join(webRoot, "index.html"), join(webRoot, "vite.config.ts")];
  for (const entry of await readdir(join(webRoot, "src"), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
  }
  const times = await Promise.all(files.map(async (file) => (await stat(file)).mtimeMs));
  return Math.max(...times);
}

export interface AppOptions {
  /** The identity provider the app signs in with, served at /app/identity.json (a deployed site has it built in). */
  identity?: () => { issuer: string; clientId: string } | undefined;
}

/** Answers GET requests under /app from web/dist (index.html for the app's own routes), or undefined for other paths. */
export async function serveApp(
  method: string,
  path: string,
  options: AppOptions,
): Promise<OutgoingResponse | undefined> {
  if (method !== "GET" || (path !== appPath && !path.startsWith(`${appPath}/`))) return undefined;
  const answer = await appFile(path, options);
  const issuer = options.identity?.()?.issuer;
  return { ...answer, headers: { ...dashboardHeaders(issuer ? [issuer] : []), ...answer.headers } };
}

async function appFile(path: string, options: AppOptions): Promise<OutgoingResponse> {
  const noStore = { "cache-control": "no-store" };
  if (path === `${appPath}/identity.json`) {
    const identity = options.identity?.();
    if (!identity)
      return {
        statusCode: 503,
        headers: { "content-type": "text/plain", ...noStore },
        body: Buffer.from("The identity provider is not running."),
      };
    return {
      statusCode: 200,
      headers: { "content-type": "application/json", ...noStore },
      body: Buffer.from(JSON.stringify(identity)),
    };
  }
  const relative = normalize(path.slice(appPath.length + 1) || "index.html");
  const file = relative.startsWith("..") || relative.includes(`..${sep}`) ? undefined : join(distDir, relative);
  const body = file ? await readFile(file).catch(() => undefined) : undefined;
  if (body && file)
    return {
      statusCode: 200,
      headers: { "content-type": contentTypes[extname(file)] ?? "application/octet-stream" },
      body,
    };
  const index = await readFile(join(distDir, "index.html")).catch(() => undefined);
  if (!index)
    return {
      statusCode: 503,
      headers: { "content-type": "text/plain" },
      body: Buffer.from("The dashboard is not built: run npm start or npm test."),
    };
  return { statusCode: 200, headers: { "content-type": contentTypes[".html"]!, ...noStore }, body: index };
}

/**
 * Gzipped bytes of the JavaScript the overview loads before it can render: the entry
 * script of web/dist/index.html and the chunks it preloads (lazy chunks excluded).
 */
export async function initialJavaScriptGzipBytes(): Promise<{ files: string[]; bytes: number }> {
  const { gzipSync } = await import("node:zlib");
  const html = await readFile(join(distDir, "index.html"), "utf8");
  const files = [...html.matchAll(/<(?:script[^>]+src|link[^>]+rel="modulepreload"[^>]+href)="([^"]+\.js)"/g)].map(
    (found) => found[1]!.replace(/^\/app\//, ""),
  );
  let bytes = 0;
  for (const file of files) bytes += gzipSync(await readFile(join(distDir, file)), { level: 9 }).length;
  return { files, bytes };
}
