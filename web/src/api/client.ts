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

/** A failed call's problem+json in the API's words: its field errors when it has any, else its detail (or title). */
export function problemText(error: unknown): string {
  const problem = error as { detail?: string; title?: string; errors?: { detail?: string }[] } | undefined;
  // A validation problem's own words are in its field errors ("A note needs a text."), not its summary.
  const fieldErrors = (problem?.errors ?? []).map((fieldError) => fieldError.detail).filter(Boolean);
  if (fieldErrors.length > 0) return fieldErrors.join(" ");
  return problem?.detail ?? problem?.title ?? "The request failed.";
}
