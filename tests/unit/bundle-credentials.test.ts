import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundle, type Bundle } from "#bench/coldstart";

/**
 * A deployed function's SDK clients take the role's credentials from the environment, or from Lambda's container
 * endpoint where that is what the environment names, and from nowhere else (stacks/bundle-plugins.mjs,
 * core/db/environment-credentials.ts). Built here as the stack builds functions (the bench's `bundle`: SST's options
 * and the stack's plugins), a DynamoDB and an SQS client in a fresh Node process resolve what they would sign with.
 */

const dir = mkdtempSync(join(tmpdir(), "bundle-credentials-"));

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

let deployed: Bundle;
beforeAll(async () => {
  deployed = await bundle("", join(dir, "deployed.mjs"), { fromStdin: entry });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a built entry in a fresh Node process whose environment has only `env` besides PATH and HOME. */
async function run(file: string, env: Record<string, string>): Promise<unknown> {
  const { stdout } = await promisify(execFile)(process.execPath, [file], {
    env: { PATH: process.env.PATH ?? "", HOME: dir, ...env },
    encoding: "utf8",
  });
  return JSON.parse(stdout.trim().split("\n").at(-1)!);
}

describe("deployed bundles take credentials from the environment", () => {
  it("signs with the role's credentials Lambda puts in the environment", async () => {
    const role = { AWS_ACCESS_KEY_ID: "ASIAROLE", AWS_SECRET_ACCESS_KEY: "secret", AWS_SESSION_TOKEN: "session" };
    const expected = { accessKeyId: "ASIAROLE", secretAccessKey: "secret", sessionToken: "session" };
    expect(await run(deployed.entryFile, role)).toEqual([expected, expected]);
  });

  it("asks the container endpoint the environment names, with its token, when there are no keys there", async () => {
    const asked: { url?: string; headers: IncomingHttpHeaders }[] = [];
    const endpoint = createServer((request, response) => {
      asked.push({ url: request.url, headers: request.headers });
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          AccessKeyId: "ASIACONTAINER",
          SecretAccessKey: "container-secret",
          Token: "container-session",
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((listening) => endpoint.listen(0, "127.0.0.1", listening));
    try {
      const { port } = endpoint.address() as AddressInfo;
      const answer = await run(deployed.entryFile, {
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/2021-04-23/credentials`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: "container-token",
      });
      const expected = {
        accessKeyId: "ASIACONTAINER",
        secretAccessKey: "container-secret",
        sessionToken: "container-session",
      };
      expect(answer).toEqual([expected, expected]);
      expect(asked.length).toBeGreaterThan(0);
      for (const request of asked) {
        expect(request.url).toBe("/2021-04-23/credentials");
        expect(request.headers.authorization).toBe("container-token");
      }
    } finally {
      endpoint.close();
    }
  });

  it("refuses clearly with neither, and looks nowhere else (no profile, SSO, web identity or EC2 metadata)", async () => {
    expect(await run(deployed.entryFile, { AWS_PROFILE: "someone" })).toEqual({
      error: "CredentialsProviderError",
      message: "Unable to find environment variable credentials.",
    });
    const modules = Object.keys(deployed.coldInputs);
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
