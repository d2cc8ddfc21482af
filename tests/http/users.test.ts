import { randomUUID } from "node:crypto";
import { importJWK, SignJWT } from "jose";
import { describe, expect, inject, it } from "vitest";
import { keys } from "#core/db/keys";
import { table } from "#core/db/items";
import { newOrganization, request, userToken } from "#tests/helpers/stack";
import { identityToken, invitationTokenIn, inviteAndAccept, mailTo, untilStatus } from "#tests/helpers/team";
import { identityUrl } from "#tests/helpers/identity";

const email = () => `person-${randomUUID()}@example.com`;

describe("users of an organization", () => {
  it("GET /users/me answers the signed-in user's profile, PUT /users/me changes it, and an API key is no user", async () => {
    const org = await newOrganization();
    const me = await org.request("GET", "/users/me");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      id: org.userIds.owner,
      role: "owner",
      status: "Active",
      phone: null,
      workingHours: [],
    });

    const updated = await org.request("PUT", "/users/me", {
      body: {
        phone: "(212) 555-0100",
        timeZone: "America/Chicago",
        workingHours: [{ day: "Mon", start: "09:00", end: "17:00" }],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      phone: "+12125550100",
      timeZone: "America/Chicago",
      workingHours: [{ day: "Mon", start: "09:00", end: "17:00" }],
    });
    expect((await org.request("GET", "/users/me")).body.phone).toBe("+12125550100");

    const badZone = await org.request("PUT", "/users/me", { body: { timeZone: "Mars/Olympus" } });
    expect(badZone.status).toBe(400);
    expect((await org.request("GET", "/users/me", { token: org.apiKey })).status).toBe(403);
  });

  it("lists the organization's users with the paging query, narrowable by role or to one user", async () => {
    const org = await newOrganization();
    const all = await org.request("POST", "/users/all/my", { body: { includeCount: true } });
    expect(all.status).toBe(200);
    expect(all.body.totalCount).toBe(3);
    expect(all.body.items.map((u: { role: string }) => u.role).sort()).toEqual(["admin", "agent", "owner"]);
    const agents = await org.request("POST", "/users/all/my", {
      body: { filters: [{ field: "role", value: "agent" }] },
      token: org.agentToken,
    });
    expect(agents.body.items.map((u: { id: string }) => u.id)).toEqual([org.userIds.agent]);
    const mine = await org.request("POST", "/users/all/my", {
      body: { filters: [{ field: "id", value: org.userIds.admin }] },
    });
    expect(mine.body.items).toHaveLength(1);
    const other = await newOrganization();
    const foreign = await other.request("POST", "/users/all/my", {
      body: { filters: [{ field: "id", value: org.userIds.admin }] },
    });
    expect(foreign.body.items).toEqual([]);
  });

  it("an invitation is e-mailed, accepted once by the invited address, and never answers its token", async () => {
    const org = await newOrganization();
    const address = email();
    const invited = await org.request("POST", "/invitations", {
      body: { email: address.toUpperCase(), role: "agent" },
      token: org.adminToken,
    });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: address, role: "agent", status: "Pending", acceptedAt: null });
    expect(JSON.stringify(invited.body)).not.toContain("inv_");
    const token = invitationTokenIn((await mailTo(address)).text);

    const stranger = await request("POST", "/invitations/accept", {
      token: await identityToken(email()),
      body: { token },
    });
    expect(stranger.status).toBe(403);
    const unknown = await request("POST", "/invitations/accept", {
      token: await identityToken(address),
      body: { token: `${token.slice(0, -4)}AAAA` },
    });
    expect(unknown.status).toBe(404);

    const accepted = await request("POST", "/invitations/accept", {
      token: await identityToken(address, "Dana"),
      body: { token },
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ email: address, name: "Dana", role: "agent", status: "Active" });

    const again = await request("POST", "/invitations/accept", {
      token: await identityToken(address),
      body: { token },
    });
    expect(again.status).toBe(409);

    // The new user signs in (a token of the organization) and is who the invitation said.
    const dana = await userToken({ organizationId: org.organizationId, userId: accepted.body.id, role: "agent" });
    const me = await request("GET", "/users/me", { token: dana });
    expect(me.body).toMatchObject({ id: accepted.body.id, role: "agent" });
    const listed = await org.request("POST", "/invitations/all/my", { body: {} });
    expect(listed.body.items[0]).toMatchObject({ email: address, status: "Accepted" });
    // The address now has a user: inviting it again is a conflict.
    expect((await org.request("POST", "/invitations", { body: { email: address } })).status).toBe(409);
  });

  it("an expired invitation is refused", async () => {
    const org = await newOrganization();
    const address = email();
    const invited = await org.request("POST", "/invitations", { body: { email: address, expiresInHours: 1 } });
    expect(invited.status).toBe(201);
    const token = invitationTokenIn((await mailTo(address)).text);
    // An hour passes: the stored link expiry moves into the past.
    await table.update({
      Key: keys.invitation(org.organizationId, invited.body.id),
      UpdateExpression: "SET linkExpiresAt = :past",
      ExpressionAttributeValues: { ":past": new Date(Date.now() - 1000).toISOString() },
    });
    const late = await request("POST", "/invitations/accept", { token: await identityToken(address), body: { token } });
    expect(late.status).toBe(409);
    expect(late.body.detail).toMatch(/expired/);
    expect((await org.request("POST", "/invitations/all/my", { body: {} })).body.items[0].status).toBe("Expired");
  });

  it("a local invitation lands in the identity provider's mailbox page, beside sign-in codes, and is accepted from its link there", async () => {
    const org = await newOrganization();
    const address = email();
    expect((await org.request("POST", "/invitations", { body: { email: address, role: "admin" } })).status).toBe(201);
    await mailTo(address);
    // The page a developer reads (GET <issuer>/dev/mailbox): the invitation's link is there, clickable.
    const page = await (await fetch(new URL("/dev/mailbox", identityUrl()))).text();
    const row = page.split("<tr>").find((line) => line.includes(address))!;
    expect(row).toContain("invited you to join their team");
    const link = /<a href="([^"]+)">/.exec(row)?.[1];
    expect(link).toMatch(new RegExp(`^${inject("baseUrl")}/app/#/invitation/inv_`));
    const token = invitationTokenIn(link!);
    const accepted = await request("POST", "/invitations/accept", {
      token: await identityToken(address),
      body: { token },
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body).toMatchObject({ email: address, role: "admin" });
  });

  it("a pending invitation is revoked by an owner or admin: its link then fails with a clear 409, and it lists as Revoked", async () => {
    const org = await newOrganization();
    const address = email();
    const invited = await org.request("POST", "/invitations", { body: { email: address } });
    const token = invitationTokenIn((await mailTo(address)).text);
    const path = `/invitations/${invited.body.id}`;

    expect((await org.request("DELETE", path, { token: org.agentToken })).status).toBe(403);
    const other = await newOrganization();
    expect((await other.request("DELETE", path)).status).toBe(404);
    expect((await org.request("DELETE", "/invitations/01JABCDEFGHJKMNPQRSTVWXYZ0")).status).toBe(404);

    const revoked = await org.request("DELETE", path, { token: org.adminToken });
    expect(revoked.status).toBe(204);
    const late = await request("POST", "/invitations/accept", { token: await identityToken(address), body: { token } });
    expect(late.status).toBe(409);
    expect(late.body.detail).toBe("This invitation was revoked and cannot be used again.");
    const listed = await org.request("POST", "/invitations/all/my", {
      body: { filters: [{ field: "status", value: "Revoked" }] },
    });
    expect(listed.body.items).toEqual([
      expect.objectContaining({ id: invited.body.id, email: address, status: "Revoked" }),
    ]);
    const again = await org.request("DELETE", path);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/revoked: only a pending invitation/);
    const audit = await org.request("POST", "/audit-log/all/my", {
      body: { filters: [{ field: "action", value: "invitation.revoked" }] },
    });
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        resourceId: invited.body.id,
        changes: { status: { before: "Pending", after: "Revoked" } },
      }),
    ]);

    // An accepted invitation cannot be revoked; only an owner revokes an invitation to the owner role.
    const accepted = await inviteAndAccept(org, email());
    const used = (
      await org.request("POST", "/invitations/all/my", { body: { filters: [{ field: "status", value: "Accepted" }] } })
    ).body.items[0];
    expect(accepted.user.email).toBe(used.email);
    expect((await org.request("DELETE", `/invitations/${used.id}`)).status).toBe(409);
    const toOwner = await org.request("POST", "/invitations", { body: { email: email(), role: "owner" } });
    expect((await org.request("DELETE", `/invitations/${toOwner.body.id}`, { token: org.adminToken })).status).toBe(
      403,
    );
    expect((await org.request("DELETE", `/invitations/${toOwner.body.id}`)).status).toBe(204);
  });

  it("agents cannot invite or change roles; admins cannot make owners; only an owner can, and an organization keeps an owner", async () => {
    const org = await newOrganization();
    expect(
      (await org.request("POST", "/invitations", { body: { email: email() }, token: org.agentToken })).status,
    ).toBe(403);
    expect(
      (await org.request("PUT", `/users/${org.userIds.agent}/role`, { body: { role: "admin" }, token: org.agentToken }))
        .status,
    ).toBe(403);
    expect(
      (await org.request("PUT", `/users/${org.userIds.agent}/role`, { body: { role: "owner" }, token: org.adminToken }))
        .status,
    ).toBe(403);
    expect(
      (await org.request("POST", "/invitations", { body: { email: email(), role: "owner" }, token: org.adminToken }))
        .status,
    ).toBe(403);
    expect((await org.request("PUT", `/users/${org.userIds.owner}/role`, { body: { role: "agent" } })).status).toBe(
      409,
    );

    const promoted = await org.request("PUT", `/users/${org.userIds.agent}/role`, {
      body: { role: "admin" },
      token: org.adminToken,
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body.role).toBe("admin");
    // The stored role decides, not the token's claim: the same token may now invite.
    await untilStatus(
      () => org.request("POST", "/invitations", { body: { email: email() }, token: org.agentToken }),
      201,
    );
  });

  it("a deactivated user's token is refused before it expires, and the keys they created stop working", async () => {
    const org = await newOrganization();
    const { user } = await inviteAndAccept(org, email(), "admin");
    const token = await userToken({ organizationId: org.organizationId, userId: user.id, role: "admin" });
    const key = await request("POST", "/api-keys", { token, body: { name: "their key", scopes: ["leads:read"] } });
    expect(key.status).toBe(201);
    expect((await request("POST", "/leads/all/my", { token: key.body.key, body: {} })).status).toBe(200);

    const deactivated = await org.request("POST", `/users/${user.id}/deactivate`);
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.status).toBe("Deactivated");
    const refused = await untilStatus(() => request("GET", "/users/me", { token }), 401);
    expect((refused.body as { detail: string }).detail).toBe("The user is not an active member of the organization.");
    await untilStatus(() => request("POST", "/leads/all/my", { token: key.body.key, body: {} }), 401);
  });

  it("refuses a JWT whose header names a critical extension (RFC 7515 crit)", async () => {
    const org = await newOrganization();
    const signing = inject("signing");
    const token = await new SignJWT({ org_id: org.organizationId, role: "owner", "https://example.com/ext": true })
      .setProtectedHeader({
        alg: "RS256",
        kid: signing.privateJwk.kid,
        typ: "JWT",
        crit: ["https://example.com/ext"],
        "https://example.com/ext": true,
      })
      .setSubject(org.userIds.owner)
      .setIssuer(signing.issuer)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(await importJWK(signing.privateJwk, "RS256"), { crit: { "https://example.com/ext": true } });
    const response = await request("GET", "/users/me", { token });
    expect(response.status).toBe(401);
    expect(response.body.detail).toMatch(/critical header/);
  });

  it("refuses a well-signed token of a user the organization does not have", async () => {
    const org = await newOrganization();
    const token = await userToken({
      organizationId: org.organizationId,
      userId: `ghost-${randomUUID()}`,
      role: "owner",
    });
    expect((await request("GET", "/users/me", { token })).status).toBe(401);
  });
});
