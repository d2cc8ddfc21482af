/**
 * The invitation a person opened (`#/invitation/inv_…`), kept in this tab's sessionStorage while they sign in:
 * the issuer redirects back to the app's root, so the link's fragment does not survive the round trip.
 */
const key = "pendingInvitation";

/** The route of an invitation link; the token is taken out of the address bar as soon as the app starts. */
export const invitationRoute = "/invitation";

/** Keeps the token of an invitation link in the address bar, then replaces the address with the bare route. */
export function takeInvitationFromAddress(): void {
  const match = /^#\/invitation\/(inv_[A-Za-z0-9_-]+)$/.exec(location.hash);
  if (!match) return;
  sessionStorage.setItem(key, match[1]!);
  // Out of the address bar and the history: nothing later (a Referer, a shared screenshot) shows it.
  history.replaceState(null, "", `${location.pathname}${location.search}#${invitationRoute}`);
}

export function pendingInvitation(): string | null {
  return sessionStorage.getItem(key);
}

export function forgetInvitation(): void {
  sessionStorage.removeItem(key);
}
