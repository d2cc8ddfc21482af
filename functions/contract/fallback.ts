import { endpoint } from "#core/http/endpoint";
import { fallbackOperation, rejectUnmatched } from "#core/http/fallback";

export const handler = endpoint(fallbackOperation, async ({ event }) => rejectUnmatched(event));
