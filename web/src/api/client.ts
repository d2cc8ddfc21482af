import createClient from "openapi-fetch";
import type { paths } from "./schema";
import { accessToken } from "./session";

/** The stage's API (set at build time for a deployed site); empty = same origin (the local stack). */
export const apiBaseUrl: string = import.meta.env.VITE_API_URL ?? "";

/** Told when the session ended under the app (its refresh token was revoked or expired): show the sign-in page. */
let onSessionEnded: () => void = () => undefined;
export function whenSessionEnds(callback: () => void): void {
  onSessionEnded = callback;
}

export const api = createClient<paths>({ baseUrl: apiBaseUrl });
api.use({
  async onRequest({ request }) {
    const token = await accessToken();
    if (!token) onSessionEnded();
    else request.headers.set("authorization", `Bearer ${token}`);
    return request;
  },
});

/** The problem+json detail (or title) of a failed call, for showing as the API said it. */
export function problemText(error: unknown): string {
  const problem = error as { detail?: string; title?: string } | undefined;
  return problem?.detail ?? problem?.title ?? "The request failed.";
}
