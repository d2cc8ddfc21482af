import { publicEndpoint } from "#core/http/public-endpoint";
import { fallbackOperation, rejectUnmatched } from "#core/http/fallback";

export const handler = publicEndpoint(fallbackOperation, async ({ event }) => rejectUnmatched(event));
