import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { Users } from "#core/users/index";
import { intakeByQuery, uniquePhone, waitForLead, type TestSource } from "#tests/helpers/leads";
import { userToken, type TestOrganization } from "#tests/helpers/stack";

export interface TestAgent {
  id: string;
  token: string;
  email: string;
}

/** More agents of the organization, each with a token; `phones[i]` becomes agent i's profile phone (PUT /users/me). */
export async function agents(
  org: TestOrganization,
  count: number,
  phones: (string | null)[] = [],
): Promise<TestAgent[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const user = await Users.add(org.organizationId, {
        email: `agent-${randomUUID()}@example.com`,
        name: `Agent ${index + 1}`,
        role: "agent",
      });
      const token = await userToken({
        organizationId: org.organizationId,
        userId: user.id,
        role: "agent",
        email: user.email,
      });
      const phone = phones[index];
      if (phone) {
        const profile = await org.request("PUT", "/users/me", { token, body: { phone } });
        expect(profile.status, JSON.stringify(profile.body)).toBe(200);
      }
      return { id: user.id, token, email: user.email };
    }),
  );
}

export async function routingSettings(org: TestOrganization, body: Record<string, unknown>) {
  const response = await org.request("PUT", "/routing/settings", { body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** A lead posted to the source and processed. */
export async function processedLead(org: TestOrganization, source: TestSource, params: Record<string, string> = {}) {
  const created = await intakeByQuery(source, { FirstName: "Ada", Phone: uniquePhone(), ...params });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForLead(org, created.body.id, (lead) => lead.processingStatus === "Processed");
}

/** A lead posted to the source, once routing has decided (assigned, offered, or flagged: the organization has rules). */
export async function routedLead(org: TestOrganization, source: TestSource, params: Record<string, string> = {}) {
  const created = await intakeByQuery(source, { FirstName: "Ada", Phone: uniquePhone(), ...params });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForLead(
    org,
    created.body.id,
    (lead) => lead.assignedUserId !== null || lead.needsAttention || lead.offeredTo?.length > 0,
  );
}

/** Assigns a lead by hand (owner). */
export async function assign(org: TestOrganization, leadId: string, userId: string | null) {
  const response = await org.request("PUT", `/leads/${leadId}/assignee`, { body: { userId } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}
