import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { environmentNames } from "#stacks/definitions";
import * as Users from "#core/users/index";
import { applyStackEnv, request, userToken } from "#tests/helpers/stack";
import { identityToken } from "#tests/helpers/team";

describe("self-service sign-up", () => {
  afterEach(() => {
    delete process.env[environmentNames.selfServiceSignUp];
  });

  it("is refused where the stage does not allow it (the default)", async () => {
    const response = await request("POST", "/organizations", {
      token: await identityToken(`founder-${randomUUID()}@example.com`),
      body: { organizationName: "Acme" },
    });
    expect(response.status).toBe(403);
    expect(response.body.detail).toMatch(/Self-service sign-up is off/);
  });

  it("where allowed, creates an organization owned by the signed-in address, once per address", async () => {
    // The test stack runs with the default (off); the operation itself is exercised with the setting on.
    applyStackEnv();
    process.env[environmentNames.selfServiceSignUp] = "true";
    const email = `founder-${randomUUID()}@example.com`;
    const { organization, user } = await Users.signUp({ email, name: "Founder" }, { organizationName: "Acme Roofing" });
    expect(user).toMatchObject({ email, name: "Founder", role: "owner", status: "Active" });
    expect(await Users.forSignIn(email)).toMatchObject({
      userId: user.id,
      organizationId: organization.id,
      role: "owner",
    });
    const token = await userToken({ organizationId: organization.id, userId: user.id, role: "owner" });
    expect((await request("GET", "/users/me", { token })).body).toMatchObject({ id: user.id, role: "owner" });
    await expect(Users.signUp({ email }, { organizationName: "Second" })).rejects.toThrow(/already belongs/);
  });
});
