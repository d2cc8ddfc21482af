import { describe, expect, it } from "vitest";
import * as Organizations from "#core/organizations/index";
import { newOrganization } from "#tests/helpers/stack";

describe("analytics permissions", () => {
  it("answers 403 to a credential without analytics:read, on the report and the export", async () => {
    const organization = await newOrganization();
    const { apiKey } = await Organizations.issueApiKey(organization.organizationId, {
      name: "Leads only",
      scopes: ["leads:read"],
    });
    for (const path of ["/analytics/my", "/analytics/my/export"]) {
      const refused = await organization.request("GET", path, { token: apiKey });
      expect(refused.status).toBe(403);
      expect(refused.headers.get("content-type")).toBe("application/problem+json");
      expect((await organization.request("GET", path, { token: organization.memberToken })).status).toBe(200);
    }
  });
});
