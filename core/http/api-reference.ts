import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { onceRead, packagedFile } from "#core/shared/packaged-file";

/**
 * The API reference page (`GET /docs`): Redoc's standalone bundle, served by
 * the API itself, rendering the contract from `/openapi.json`. Nothing is
 * fetched from another origin at view time; the page's Content-Security-Policy
 * enforces it in the browser.
 */

/** Where the deployed function finds the bundle: copied next to the handler (`copyFiles` in stacks/definitions.ts). */
export const redocBundleFile = "redoc.standalone.js";
const redocPackageFile = "redoc/bundles/redoc.standalone.js";
/** Where the deployed `GET /openapi.json` finds the contract `npm run openapi` wrote (`copyFiles` too). */
export const contractFile = "openapi.json";
const contractSource = new URL("../../docs/openapi.json", import.meta.url);

// URLs are relative to /docs, so the page also works under a custom domain's base path.

/** Reads the bundle once per instance: from the Lambda package, else (local stack, tests) from node_modules. */
export const redocBundle = onceRead(async (): Promise<{ script: string; version: string }> => {
  const script = await packagedFile(redocBundleFile, () => createRequire(import.meta.url).resolve(redocPackageFile));
  // Content-addressed: the page's script URL changes with the bundle, so the script can be cached for a year.
  const version = createHash("sha256").update(script).digest("hex").slice(0, 16);
  return { script, version };
});

/**
 * The contract as `npm run openapi` wrote it (a test fails when docs/openapi.json is stale), read once per instance
 * on first use. A file beside the handler rather than a JSON import: bundled, its ~850 KB of JavaScript were compiled
 * at every cold start of the function.
 */
export const contractDocument = onceRead(
  async () =>
    JSON.parse(await packagedFile(contractFile, () => fileURLToPath(contractSource))) as Record<string, unknown>,
);

/** The page holds no personal data: browsers and shared caches may keep it briefly. */
export const pageCacheControl = "public, max-age=300";
/** The script's URL carries a hash of the bundle, so a year is safe. */
export const scriptCacheControl = "public, max-age=31536000, immutable";

/**
 * Same-origin only. Redoc injects its styles (styled-components) and runs its
 * search index in a blob: worker; everything else is refused.
 */
export const pageSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export function apiReferencePage(bundleVersion: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="openapi.json"></redoc>
<script src="docs/${redocBundleFile}?v=${encodeURIComponent(bundleVersion)}"></script>
</body>
</html>
`;
}
