import { fileURLToPath } from "node:url";
import { onceRead, packagedFile } from "#core/shared/packaged-file";
import type { webhookCatalogueEntries } from "#core/webhooks/payload-schemas";

/**
 * `GET /webhook-event-types` answers the same for every caller until the next deploy: `npm run openapi` writes it
 * (from payload-schemas.ts, beside the contract; a test fails when the file is stale) and the function reads it
 * once per instance from its package. Built at each request instead, the function bundled every resource's schema,
 * libphonenumber and the JSON Schema converter, compiled at each cold start, and ran the conversion on every call.
 */
export const webhookEventTypesPath = "docs/webhook-event-types.json";
/** Its name in the function's package (`copyFiles` in stacks/definitions.ts). */
export const webhookEventTypesFile = "webhook-event-types.json";
const localFile = new URL("../../docs/webhook-event-types.json", import.meta.url);

export type WebhookEventTypes = ReturnType<typeof webhookCatalogueEntries>;

export const webhookCatalogueDocument = onceRead(
  async () =>
    JSON.parse(await packagedFile(webhookEventTypesFile, () => fileURLToPath(localFile))) as WebhookEventTypes,
);
