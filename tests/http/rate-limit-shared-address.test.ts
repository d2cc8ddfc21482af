import { describe, expect, it } from "vitest";
import { newOrganization, request } from "#tests/helpers/stack";

describe("a shared address (office NAT) flooded with invalid keys", () => {
  it(
    "still admits valid sk_ and source keys from it, counted in their own partitions, while invalid keys get the IP's 429",
    { timeout: 150_000 },
    async () => {
      const sourceIp = `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
      const org = await newOrganization();
      const source = await org.request("POST", "/sources", { body: { name: "Seller" } });
      expect(source.status).toBe(201);
      // Distinct well-formed unknown keys: each costs a lookup, paid by the address.
      const unknownKey = (index: number) => `sk_${"0".repeat(26)}_${String(index).padStart(32, "x")}`;
      for (let batch = 0; batch < 4; batch++) {
        await Promise.all(
          Array.from({ length: 80 }, (_, index) =>
            request("GET", "/automations/anything", { sourceIp, token: unknownKey(batch * 80 + index) }),
          ),
        );
      }
      const flooded = await request("GET", "/automations/anything", { sourceIp, token: unknownKey(999) });
      expect(flooded.status).toBe(429);
      expect(flooded.body.detail).toContain("IP address");

      // Keys this instance has not verified yet (each needs a lookup), from the same address.
      const fresh = await request("POST", "/automations/all/my", { sourceIp, token: org.apiKey, body: {} });
      expect(fresh.status).toBe(200);
      expect(fresh.headers.get("ratelimit-policy")).toMatch(/^"business";/);
      const lead = await request(
        "GET",
        `/leads/intake?sourceId=${source.body.sourceId}&apiKey=${encodeURIComponent(source.body.apiKey)}&FirstName=Ada&Phone=2015550123`,
        { sourceIp },
      );
      expect(lead.status).toBe(201);
      expect(lead.headers.get("ratelimit-policy")).toMatch(/^"intake";/);
    },
  );
});
