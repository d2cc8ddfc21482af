import type { Actor } from "#core/auth/actor";
import { ValidationError } from "#core/errors";

/**
 * Credentials in actions are write-only: a webhook's signing secret and every HttpRequest header whose name says it
 * carries a credential (Authorization, Cookie, X-Api-Key, …) are answered as this marker, never their value, and a
 * PUT that sends the marker back keeps the stored value (docs/decisions.md "Credentials in actions").
 */
export const redactedSecret = "__redacted_secret__";

const credentialHeader = /authorization|cookie|token|api[-_]?key|secret|password|session|credential|signature/i;

interface ActionLike {
  id: string;
  settings: Record<string, unknown>;
}

const headersOf = (action: ActionLike) => action.settings.headers as Record<string, string> | undefined;
const secretOf = (action: ActionLike) =>
  typeof action.settings.secret === "string" ? action.settings.secret : undefined;

/** Whether a header's value is a credential, by its name. */
export function isCredentialHeader(name: string): boolean {
  return credentialHeader.test(name);
}

/** The actions as answered: every credential replaced by the marker. */
export function redactActions<TAction extends ActionLike>(actions: TAction[]): TAction[] {
  return actions.map((action) => {
    const headers = headersOf(action);
    const secret = secretOf(action);
    if (!secret && !headers) return action;
    const redactedHeaders = headers
      ? Object.fromEntries(
          Object.entries(headers).map(([name, value]) => [name, isCredentialHeader(name) ? redactedSecret : value]),
        )
      : undefined;
    return {
      ...action,
      settings: {
        ...action.settings,
        ...(secret ? { secret: redactedSecret } : {}),
        ...(redactedHeaders ? { headers: redactedHeaders } : {}),
      },
    };
  });
}

/** The actions of an update with every marker sent back replaced by the stored credential of the same action. */
export function keepStoredCredentials<TAction extends ActionLike>(actions: TAction[], stored: ActionLike[]): TAction[] {
  return actions.map((action, index) => {
    const previous = stored.find((candidate) => candidate.id === action.id);
    const settings = { ...action.settings };
    if (settings.secret === redactedSecret) {
      settings.secret = storedValue(previous && secretOf(previous), `/actions/${index}/settings/secret`);
    }
    const headers = headersOf(action);
    if (headers && Object.values(headers).includes(redactedSecret)) {
      const before = Object.fromEntries(
        Object.entries((previous && headersOf(previous)) ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
      );
      settings.headers = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [
          name,
          value === redactedSecret
            ? storedValue(before[name.toLowerCase()], `/actions/${index}/settings/headers/${name}`)
            : value,
        ]),
      );
    }
    return { ...action, settings };
  });
}

function storedValue(value: string | undefined, pointer: string): string {
  if (value === undefined || value === redactedSecret) {
    throw new ValidationError("A redacted credential can only be sent back where the action has one stored.", [
      { pointer, detail: "Send the new value, or omit it." },
    ]);
  }
  return value;
}

/**
 * Who may see an automation: an `Organization` one, everyone who may read automations; a `Private` one, its creator
 * and the organization's owners and admins (who manage every automation) and API keys (the organization's
 * integrations), never another agent.
 */
export function visibleTo(actor: Actor, automation: { visibility: string; createdByUserId: string }): boolean {
  if (automation.visibility !== "Private") return true;
  if (actor.kind !== "user" || actor.role === "owner" || actor.role === "admin") return true;
  return automation.createdByUserId === actor.userId;
}
