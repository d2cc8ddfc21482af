import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundle } from "#bench/coldstart";

/**
 * A deployed function's SDK clients take the role's credentials from the environment only (stacks/bundle-plugins.mjs,
 * core/shared/environment-credentials.ts). Built here as the stack builds functions (the bench's `bundle`: SST's
 * options and the stack's plugins), a client in a fresh Node process signs with what Lambda puts in the environment,
 * and says clearly when nothing is there, and the chain's other sources are not in the bundle at all.
 */

const dir = mkdtempSync(join(tmpdir(), "bundle-credentials-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = `
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";
const clients = [new DynamoDBClient({ region: "us-east-1" }), new SQSClient({ region: "us-east-1" })];
try {
  const resolved = await Promise.all(clients.map((client) => client.config.credentials()));
  console.log(JSON.stringify(resolved.map(({ accessKeyId, secretAccessKey, sessionToken }) => ({ accessKeyId, secretAccessKey, sessionToken }))));
} catch (error) {
  console.log(JSON.stringify({ error: error.name, message: error.message }));
}
`;

/** Runs the built entry in a fresh Node process whose environment has only `env` besides PATH and HOME. */
function run(file: string, env: Record<string, string>): unknown {
  const output = execFileSync(process.execPath, [file], {
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
    encoding: "utf8",
    // The SDK warns on stderr that it will need a newer Node than this machine's: not this test's business.
    stdio: ["ignore", "pipe", "pipe"],
  });
  return JSON.parse(output.trim().split("\n").at(-1)!);
}

describe("deployed bundles take credentials from the environment", () => {
  it("signs with the role's credentials Lambda puts in the environment", async () => {
    const built = await bundle("", join(dir, "with-role.mjs"), { fromStdin: entry });
    const role = { AWS_ACCESS_KEY_ID: "ASIAROLE", AWS_SECRET_ACCESS_KEY: "secret", AWS_SESSION_TOKEN: "session" };
    const expected = { accessKeyId: "ASIAROLE", secretAccessKey: "secret", sessionToken: "session" };
    expect(run(built.entryFile, role)).toEqual([expected, expected]);
  });

  it("refuses clearly without them, and looks nowhere else (no profile, SSO, web identity or metadata service)", async () => {
    const built = await bundle("", join(dir, "without-role.mjs"), { fromStdin: entry });
    expect(run(built.entryFile, { AWS_PROFILE: "someone" })).toEqual({
      error: "CredentialsProviderError",
      message: "Unable to find environment variable credentials.",
    });
    const modules = Object.keys(built.coldInputs);
    expect(
      modules.filter((module) => /credential-provider-(node|ini|sso|web-identity|process|imds)\//.test(module)),
    ).toEqual([]);
    expect(modules.some((module) => module.includes("credential-provider-env/"))).toBe(true);
  });

  it("keeps the SDK's default chain when built without the stack's plugins (what the bench's floor measures)", async () => {
    const built = await bundle("", join(dir, "default.mjs"), { fromStdin: entry, plugins: [] });
    expect(Object.keys(built.coldInputs).some((module) => module.includes("credential-provider-node/"))).toBe(true);
  });
});
