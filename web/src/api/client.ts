import createClient from "openapi-fetch";
import type { paths } from "./schema";

/** The stage's API (set at build time for a deployed site); empty = same origin (the local stack). */
export const apiBaseUrl: string = import.meta.env.VITE_API_URL ?? "";

const tokenKey = "accessToken";

/** The access token lives in sessionStorage: gone with the tab, never in a URL or localStorage. */
export function currentToken(): string | null {
  return sessionStorage.getItem(tokenKey);
}

export function signIn(token: string): void {
  sessionStorage.setItem(tokenKey, token.trim());
}

export function signOut(): void {
  sessionStorage.removeItem(tokenKey);
}

/** Local stack only: the development organization's owner token, never served by a deployed stage. */
export async function developmentToken(): Promise<string | null> {
  if (apiBaseUrl !== "") return null;
  const response = await fetch(`${import.meta.env.BASE_URL}dev-token`).catch(() => null);
  if (response?.status !== 200 || !(response.headers.get("content-type") ?? "").includes("json")) return null;
  const body = (await response.json()) as { token?: string };
  return body.token ?? null;
}

export const api = createClient<paths>({ baseUrl: apiBaseUrl });
api.use({
  onRequest({ request }) {
    const token = currentToken();
    if (token) request.headers.set("authorization", `Bearer ${token}`);
    return request;
  },
});

/** The problem+json detail (or title) of a failed call, for showing as the API said it. */
export function problemText(error: unknown): string {
  const problem = error as { detail?: string; title?: string } | undefined;
  return problem?.detail ?? problem?.title ?? "The request failed.";
}
