import type { Source } from "#core/sources/index";

/**
 * Who is calling, passed explicitly to every core operation. Storage keys are
 * always built from `actor.organizationId`, so an operation can only ever reach
 * the caller's own organization.
 */
export interface Actor {
  organizationId: string;
  kind: "user" | "apiKey" | "source";
  /** The user (JWT `sub`), for user actors. */
  userId?: string;
  /** The API key id, for API key actors. */
  apiKeyId?: string;
  /** The lead source, for source-key actors. */
  sourceId?: string;
  /** For source-key actors: the source as read when its key was checked, so intake need not read it again. */
  source?: Source;
  role?: Role;
  /** Permissions granted to the credential (roles expand to these). */
  permissions: ReadonlySet<Permission>;
  displayName: string;
  email?: string;
  /** Where the request came from (the audit log's "from where"); absent for the service itself. */
  origin?: { ip: string; userAgent?: string };
}

/** owner, admin, agent (docs/permissions.md). */
export const roles = ["owner", "admin", "agent"] as const;
export type Role = (typeof roles)[number];

/**
 * A role named in a stored user or a token: today's names, and `member` (the name before agents existed, still in
 * tokens signed before the rename) read as `agent`. Anything else is no role.
 */
export function roleNamed(name: unknown): Role | undefined {
  if (name === "member") return "agent";
  return roles.includes(name as Role) ? (name as Role) : undefined;
}

/** Every permission an operation can require; API keys carry a subset as scopes. */
export const permissions = [
  "automations:read",
  "automations:write",
  "leads:read",
  "leads:write",
  "sources:read",
  "sources:write",
  "messages:read",
  "messages:send",
  "messages:overrideQuietHours",
  "phoneNumbers:read",
  "phoneNumbers:write",
  "calls:read",
  "calls:place",
  "events:read",
  "suppressions:read",
  "suppressions:write",
  "billing:read",
  "billing:write",
  "analytics:read",
  "agent:use",
  "webhooks:read",
  "webhooks:write",
  "users:read",
  "users:write",
  "apiKeys:read",
  "apiKeys:write",
  "audit:read",
] as const;
export type Permission = (typeof permissions)[number];

const agentPermissions: Permission[] = [
  "automations:read",
  "leads:read",
  "leads:write",
  "sources:read",
  "messages:read",
  "messages:send",
  "phoneNumbers:read",
  "calls:read",
  "calls:place",
  "events:read",
  "suppressions:read",
  "suppressions:write",
  "billing:read",
  "analytics:read",
  "agent:use",
  // The team's names, e-mails and working hours: whom to hand a lead to (the routing issue).
  "users:read",
];

/** owner: everything; admin: everything but money; agent: day-to-day lead work (docs/permissions.md). */
export const rolePermissions: Record<Role, ReadonlySet<Permission>> = {
  owner: new Set(permissions),
  admin: new Set(permissions.filter((permission) => permission !== "billing:write")),
  agent: new Set(agentPermissions),
};

/** Source keys may only post leads into their own source. */
export const sourcePermissions: ReadonlySet<Permission> = new Set<Permission>(["leads:write"]);

/** A stable id for "who did it" on stored records: the user, else the API key. */
export function actorId(actor: Actor): string {
  if (actor.userId) return actor.userId;
  if (actor.apiKeyId) return `apikey:${actor.apiKeyId}`;
  return `source:${actor.sourceId ?? "unknown"}`;
}

/** Actor used by the service itself (queue consumers, schedules, system automations). */
export function systemActor(organizationId: string): Actor {
  return {
    organizationId,
    kind: "apiKey",
    apiKeyId: "system",
    permissions: new Set(permissions),
    displayName: "System",
  };
}

/** Who caused an event, in the event record's actor fields; the system when no actor is given (consumers, webhooks, sweeps). */
export function eventActorFields(actor: Actor | undefined) {
  if (!actor) return { createdBy: "system", actorDisplayName: "System" };
  return {
    createdBy: actorId(actor),
    ...(actor.userId ? { actorUserId: actor.userId } : {}),
    actorDisplayName: actor.displayName,
    ...(actor.email ? { actorEmail: actor.email } : {}),
  };
}
