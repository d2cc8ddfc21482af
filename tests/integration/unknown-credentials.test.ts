import { describe, expect, it } from "vitest";
import { db } from "#core/db/client";
import { rateLimitPolicy } from "#core/rate-limit/index";
import { handler as getAutomation } from "#functions/automations/get";
import { handler as intakeQuery } from "#functions/leads/intake-query";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

applyStackEnv();

/**
 * Counts the storage reads of API-key and source items this worker makes: a
 * middleware on the real DynamoDB client (the emulator answers every call),
 * which records the key of each GetItem.
 */
const readKeys: string[] = [];
db().middlewareStack.add(
  (next) => async (args) => {
    const input = args.input as { Key?: Record<string, unknown> };
    const sk = input.Key?.sk as string | { S?: string } | undefined;
    const sortKey = typeof sk === "string" ? sk : sk?.S;
    if (sortKey?.startsWith("APIKEY#") || sortKey?.startsWith("SOURCE#")) readKeys.push(sortKey);
    return next(args);
  },
  { step: "initialize", name: "countCredentialReads" },
);

/** The floods below take a few seconds: start them where no window boundary falls inside. */
async function awayFromWindowEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
}

const call = (token: string, sourceIp: string) =>
  getAutomation(
    apiEvent({
      method: "GET",
      path: "/automations/a1",
      routeKey: "GET /automations/{id}",
      pathParameters: { id: "a1" },
      headers: { authorization: `Bearer ${token}` },
      sourceIp,
    }),
    lambdaContext(),
  );

describe("unknown credentials (issue 14 §4)", () => {
  it(
    "looks an unknown API key up once, then answers from the warm negative cache, limited by the caller's IP",
    { timeout: 60_000 },
    async () => {
      const organization = await newOrganization();
      // A well-formed key of a real organization that was never issued: it costs a read to find out.
      const unknownKey = organization.apiKey.replace(/.{8}$/, "deadbeef");
      const sourceIp = `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
      await awayFromWindowEnd();
      readKeys.length = 0;
      const results = [];
      for (let index = 0; index < rateLimitPolicy.limit + 5; index += 1) results.push(await call(unknownKey, sourceIp));
      expect(readKeys).toHaveLength(1);
      expect(results.filter((result) => result.statusCode === 401)).toHaveLength(rateLimitPolicy.limit);
      const limited = results.filter((result) => result.statusCode === 429);
      expect(limited).toHaveLength(5);
      expect(JSON.parse(limited[0]!.body!).detail).toContain("IP address");
      expect(limited[0]!.headers?.ratelimit).toMatch(/^"ip";r=0;t=\d+$/);
    },
  );

  it("answers a new unknown key from an IP over its limit 429 after one lookup (a valid key from a shared address must pass), and the same key again with no read", async () => {
    const organization = await newOrganization();
    const sourceIp = `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const firstKey = organization.apiKey.replace(/.{8}$/, "deadbee1");
    await awayFromWindowEnd();
    for (let index = 0; index < rateLimitPolicy.limit; index += 1) await call(firstKey, sourceIp);
    readKeys.length = 0;
    const secondKey = organization.apiKey.replace(/.{8}$/, "deadbee2");
    expect((await call(secondKey, sourceIp)).statusCode).toBe(429);
    expect(readKeys).toHaveLength(1);
    expect((await call(secondKey, sourceIp)).statusCode).toBe(429);
    expect(readKeys).toHaveLength(1);
  });

  it(
    "counts an unknown source key against the IP: a flood costs one read and stops at the IP limit",
    { timeout: 60_000 },
    async () => {
      const organization = await newOrganization();
      const source = (await organization.request("POST", "/sources", { body: { name: "Seller" } })).body as {
        sourceId: string;
        apiKey: string;
      };
      const wrongKey = source.apiKey.replace(/.{8}$/, "deadbeef");
      const sourceIp = `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
      const post = () =>
        intakeQuery(
          apiEvent({
            method: "GET",
            path: "/leads/intake",
            routeKey: "GET /leads/intake",
            queryStringParameters: { sourceId: source.sourceId, apiKey: wrongKey, FirstName: "Ada" },
            sourceIp,
          }),
          lambdaContext(),
        );
      await awayFromWindowEnd();
      readKeys.length = 0;
      const results = [];
      for (let index = 0; index < rateLimitPolicy.limit + 5; index += 1) results.push(await post());
      expect(readKeys).toHaveLength(1);
      expect(results.filter((result) => result.statusCode === 401)).toHaveLength(rateLimitPolicy.limit);
      expect(results.filter((result) => result.statusCode === 429)).toHaveLength(5);
    },
  );

  it("still serves a valid key, counted against its business partition only (its first lookup costs the IP nothing)", async () => {
    const organization = await newOrganization();
    const sourceIp = `198.19.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const badKey = (index: number) => organization.apiKey.replace(/.{8}$/, `deadbe${10 + index}`);
    const remainingOnIp = async (index: number) => {
      const refused = await call(badKey(index), sourceIp);
      expect(refused.statusCode).toBe(401);
      return Number(/;r=(\d+);/.exec(String(refused.headers?.ratelimit))?.[1]);
    };
    await awayFromWindowEnd();
    const before = await remainingOnIp(1);
    // A key this instance has not seen yet: read once, and counted where it belongs.
    const result = await call(organization.apiKey, sourceIp);
    expect(result.statusCode).toBe(404);
    expect(result.headers?.ratelimit).toMatch(/^"business";r=\d+;t=\d+$/);
    expect(await remainingOnIp(2)).toBe(before - 1);
  });
});
