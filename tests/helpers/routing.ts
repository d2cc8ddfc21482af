import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import * as Users from "#core/users/index";
import { intakeByQuery, uniquePhone, waitForLead, type TestSource } from "#tests/helpers/leads";
import { events, sleep } from "#tests/helpers/messaging";
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

/** Sets the agent's alert preferences (PUT /users/me with their own token). */
export async function setAlerts(org: TestOrganization, agent: TestAgent, alerts: Record<string, string[]>) {
  const response = await org.request("PUT", "/users/me", { token: agent.token, body: { alerts } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

/** The outbound messages to `phone` the organization's events show, once `count` of them are there. */
export async function textsTo(org: TestOrganization, phone: string, count: number, timeoutMs = 20_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = [
      ...new Set(
        (await events(org))
          .filter((event) => event.relatedEntityType === "Message" && event.toPhoneNumber === phone)
          .map((event) => event.relatedEntityId as string),
      ),
    ];
    if (ids.length >= count || Date.now() > deadline)
      return Promise.all(ids.map(async (id) => (await org.request("GET", `/messages/${id}`)).body));
    await sleep(200);
  }
}
