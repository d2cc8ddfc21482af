import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { adminCli } from "#tests/helpers/admin";
import { signInWithPassword } from "#tests/helpers/identity";
import { applyStackEnv } from "#tests/helpers/stack";

const cli = adminCli();

beforeAll(() => applyStackEnv());

/** A signed-in user's access token claims (OpenAuth puts them under `properties`). */
function claimsOf(accessToken: string): Record<string, any> {
  return JSON.parse(Buffer.from(accessToken.split(".")[1]!, "base64url").toString("utf8"));
}

describe("admin CLI: a new organization's first owner signs in with a password", () => {
  it(
    "create-org with an owner, then set-password: the owner signs in at the identity provider with the printed password",
    { timeout: 300_000 },
    async () => {
      const email = `first-owner-${randomUUID()}@example.com`;
      const created = await cli("create-org", "--name", "Acme Roofing", "--owner-email", email);
      expect(created.code).toBe(0);
      const organizationId = created.output.organizationId as string;

      const set = await cli("set-password", "--email", email.toUpperCase());
      expect(set.code).toBe(0);
      expect(set.output).toMatchObject({ email, organizationId, userId: created.output.owner.id });
      const password = set.output.password as string;
      expect(password).toMatch(/^[A-Za-z0-9_-]{18}$/);

      // The same issuer flow a browser goes through (authorize, password form, code exchange with PKCE).
      const signedIn = await signInWithPassword(email, password);
      expect(signedIn.status).toBe(200);
      expect(claimsOf(signedIn.body.access_token).properties).toMatchObject({
        email,
        org_id: organizationId,
        role: "owner",
      });

      // Setting it again replaces it: the first password no longer signs in.
      const again = await cli("set-password", "--email", email);
      expect(again.output.password).not.toBe(password);
      await expect(signInWithPassword(email, password)).rejects.toThrow(/sign-in: 200|sign-in: 4\d\d/);
      expect((await signInWithPassword(email, again.output.password)).status).toBe(200);
    },
  );

  it(
    "refuses an address that has no active user, so an operator cannot create a sign-in for nobody",
    { timeout: 120_000 },
    async () => {
      const unknown = await cli("set-password", "--email", `nobody-${randomUUID()}@example.com`);
      expect(unknown.code).toBe(1);
      expect(unknown.error.error).toMatch(/^No active user has the e-mail nobody-/);
    },
  );
});
