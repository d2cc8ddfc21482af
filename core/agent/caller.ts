import type { ServerCallContext, User } from "@a2a-js/sdk/server";
import { actorId, type Actor } from "#core/auth/actor";

/**
 * The A2A SDK's view of the caller, carrying our Actor so the task store and
 * the executor act for exactly the credential the HTTP chain authenticated.
 */
export class ActorUser implements User {
  constructor(readonly actor: Actor) {}

  get isAuthenticated(): boolean {
    return true;
  }

  /** Unique across organizations: the SDK's in-memory scoping keys on it. */
  get userName(): string {
    return `${this.actor.organizationId}/${actorId(this.actor)}`;
  }
}

/** The Actor of an SDK call; every call reaching the SDK was authenticated by the HTTP chain first. */
export function actorOf(context: ServerCallContext): Actor {
  const user = context.user;
  if (!(user instanceof ActorUser)) throw new Error("A2A call without an authenticated actor");
  return user.actor;
}
