import { writeFile } from "node:fs/promises";
import { openApiDocument } from "#core/http/openapi";

/** `npm run openapi`: writes the contract to docs/openapi.json (the running service serves the same at /openapi.json). */
export const openApiPath = "docs/openapi.json";

export function renderOpenApi(): string {
  return `${JSON.stringify(openApiDocument(undefined), null, 2)}\n`;
}

if (process.argv[1]?.endsWith("write-openapi.ts")) {
  await writeFile(openApiPath, renderOpenApi());
  console.log(`wrote ${openApiPath}`);
}
