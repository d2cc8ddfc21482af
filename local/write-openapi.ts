import { writeFile } from "node:fs/promises";
import { openApiDocument } from "#core/http/openapi";
import { webhookEventTypesPath } from "#core/webhooks/event-types-file";
import { webhookCatalogueEntries } from "#core/webhooks/payload-schemas";

/**
 * `npm run openapi`: writes the contract to docs/openapi.json (the running service serves the same at /openapi.json)
 * and the webhook event catalogue `GET /webhook-event-types` serves to docs/webhook-event-types.json.
 */
export const openApiPath = "docs/openapi.json";

export function renderOpenApi(): string {
  return `${JSON.stringify(openApiDocument(undefined), null, 2)}\n`;
}

export function renderWebhookEventTypes(): string {
  return `${JSON.stringify(webhookCatalogueEntries(), null, 2)}\n`;
}

if (process.argv[1]?.endsWith("write-openapi.ts")) {
  await writeFile(openApiPath, renderOpenApi());
  await writeFile(webhookEventTypesPath, renderWebhookEventTypes());
  console.log(`wrote ${openApiPath} and ${webhookEventTypesPath}`);
}
