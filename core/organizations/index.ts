import { transact } from "#core/db/transact";
import { table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { OrganizationEntity } from "#core/db/entities/organizations";
import * as Audit from "#core/audit/index";
import { permissions, type Actor, type Permission } from "#core/auth/actor";
import { NotFoundError } from "#core/errors";
import { newId, nowIso } from "#core/shared/ids";
import * as ApiKeys from "#core/organizations/api-keys";
import { type ApiKeyRecord } from "#core/organizations/api-keys";
import {
  forgetOrganizationProfile,
  organizationProfile,
  toOrganization,
  type Organization,
} from "#core/organizations/profile";
import type { UpdateOrganization } from "#core/organizations/schemas";
import { currentOrganization } from "#core/organizations/current";

export type { Organization } from "#core/organizations/profile";

export { type ApiKeyRecord } from "#core/organizations/api-keys";

/** Organizations (tenants), their profile and their API keys. Operator-facing (no actor) but for the profile's routes. */

/** Creates an organization with a first API key holding every scope. */
export async function create(input: {
  name: string;
  timeZone?: string;
}): Promise<{ organization: Organization; apiKey: string }> {
  const organization: Organization = {
    id: newId(),
    name: input.name,
    timeZone: input.timeZone ?? "America/New_York",
    phone: null,
    website: null,
    createdAt: nowIso(),
    modifiedAt: null,
  };
  const { apiKey, item: keyItem } = await ApiKeys.issue(organization.id, {
    name: "Default key",
    scopes: [...permissions],
  });
  await transact([{ Put: OrganizationEntity.create(organization) }, { Put: { Item: keyItem } }]);
  return { organization, apiKey };
}

export { organizationProfile as fromId };

/** The organization's profile read consistently (core/organizations/current). */
export { currentOrganization as current };

/** `GET /organizations/me`: the caller's organization, read consistently (a profile just changed shows at once). */
export async function profile(actor: Actor): Promise<Organization> {
  const organization = await currentOrganization(actor.organizationId);
  if (!organization) throw new NotFoundError("Organization", actor.organizationId);
  return organization;
}

/**
 * `PUT /organizations/me`: changes the fields given (absent ones are kept), with its audit entry in the same
 * transaction. Other warm instances (senders, the automation engine) see the change within 30 s.
 */
export async function updateProfile(actor: Actor, input: UpdateOrganization): Promise<Organization> {
  const identity = { organizationId: actor.organizationId };
  try {
    return await Audit.commit(actor, async (tx) => {
      const stored = await OrganizationEntity.get(identity, { consistent: true });
      if (!stored) throw new NotFoundError("Organization", actor.organizationId);
      const before = toOrganization(stored);
      const given = Object.entries(input).filter(([, value]) => value !== undefined);
      if (given.every(([field, value]) => before[field as keyof Organization] === value)) return { result: before };
      const changes = { ...Object.fromEntries(given), modifiedAt: nowIso() };
      const after: Organization = { ...before, ...changes };
      const change = OrganizationEntity.update(before, changes, { condition: Audit.unchangedSince(stored) });
      tx.update("change", change);
      const audited = { action: "organization.updated", resourceType: "Organization", resourceId: before.id };
      return { change: { ...audited, before: { ...before }, after: { ...after } }, result: after };
    });
  } finally {
    forgetOrganizationProfile(actor.organizationId);
  }
}

/** Every organization, oldest first (operator CLI). */
export async function list(): Promise<Organization[]> {
  const items = await queryAll(OrganizationEntity.query("byCreation", {}));
  return items.map(toOrganization);
}

/** Issues another `sk_` key (operator CLI, tests); the plain key is returned once and stored only hashed. */
export async function issueApiKey(
  organizationId: string,
  input: { name: string; scopes?: Permission[] },
): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const { apiKey, record, item } = await ApiKeys.issue(organizationId, {
    name: input.name,
    scopes: input.scopes ?? [...permissions],
  });
  await table.put({ Item: item });
  return { apiKey, record };
}

/** Resolves an `sk_` key in one read; undefined when unknown, malformed, revoked or expired. */
export const resolveApiKey = (apiKey: string) => ApiKeys.resolve(apiKey);
