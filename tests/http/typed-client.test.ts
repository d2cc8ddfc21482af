import createClient, { type Middleware } from "openapi-fetch";
import { describe, expect, it } from "vitest";
import type { paths } from "../../web/src/api/schema.js";
import { uniqueEmail, uniquePhone } from "#tests/helpers/leads";
import { baseUrl, newOrganization, parsedAnswer } from "#tests/helpers/stack";

/**
 * A client generated from docs/openapi.json (`npm run web:types`: openapi-typescript
 * writes web/src/api/schema.d.ts, which `npm run typecheck` compiles this file
 * against), driven through openapi-fetch as an integrator would use it. Every
 * answer is also checked against the contract, like `request()` does.
 */
const checkedAgainstContract: Middleware = {
  async onResponse({ request, response }) {
    await parsedAnswer(request.method, new URL(request.url), response.clone());
    return undefined;
  },
};

function apiClient(apiKey: string) {
  const client = createClient<paths>({
    baseUrl: baseUrl().replace(/\/$/, ""),
    headers: { Authorization: `Bearer ${apiKey}` },
  });
  client.use(checkedAgainstContract);
  return client;
}

describe("a typed client generated from the contract (openapi-typescript + openapi-fetch)", () => {
  it("creates a lead, finds it in the list and fetches it, with typed requests and answers", async () => {
    const organization = await newOrganization();
    const client = apiClient(organization.apiKey);
    const email = uniqueEmail();

    const created = await client.POST("/leads", {
      body: {
        contact: { firstName: "Ada", lastName: "Lovelace", email, phone: { number: uniquePhone(), type: "Mobile" } },
        metadata: { utmSource: "typed-client", price: "12.50" },
      },
    });
    expect(created.response.status).toBe(201);
    const lead = created.data!;
    expect(lead.contact?.email).toBe(email);

    const listed = await client.POST("/leads/all/my", { body: { pageSize: 10 } });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.items.map((item) => item.id)).toContain(lead.id);

    const fetched = await client.GET("/leads/{id}", { params: { path: { id: lead.id } } });
    expect(fetched.response.status).toBe(200);
    expect(fetched.data!.id).toBe(lead.id);
    expect(fetched.data!.metadata?.utmSource).toBe("typed-client");

    // Problems are typed too: an unknown id is a 404 problem, in `error`.
    const missing = await client.GET("/leads/{id}", { params: { path: { id: "01ARZ3NDEKTSV4RRFFQ69G5FAV" } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ status: 404 });
  });
});
