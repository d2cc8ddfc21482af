import { config } from "#core/config";

/**
 * The skills the `/a2a` endpoint serves; each acts only within the caller's
 * organization and permissions. `core/agent/skills` implements exactly these ids
 * (a `Record<AgentSkillId, …>`), so the card and the endpoint cannot drift apart.
 * `input` documents the structured form: a data part `{ "skill": id, "input": {...} }`.
 */
export const agentSkills = [
  {
    id: "summarize-performance",
    name: "Summarize performance",
    description:
      "Summarizes lead volume, speed to lead, messaging and call usage for a recent period (analytics). Input: { days?: 1-365 (default 30) }.",
    tags: ["analytics", "speed-to-lead"],
    examples: [
      "How fast did we respond to leads in the last 7 days?",
      '{"skill":"summarize-performance","input":{"days":7}}',
    ],
  },
  {
    id: "find-leads",
    name: "Find leads",
    description:
      "Searches the organization's leads by name, e-mail or phone, with filters such as source or status. Input: { search?: string, filters?: [{ field, value }], pageSize?: 1-50, continuationToken? }.",
    tags: ["leads", "search"],
    examples: ["Find leads named Jane", '{"skill":"find-leads","input":{"search":"+15551234567"}}'],
  },
  {
    id: "my-leads",
    name: "Find my leads",
    description:
      "Lists the leads assigned to the calling user (routing and assignment), newest first. Input: { pageSize?: 1-50, continuationToken? }. A user's skill: an API key is nobody's.",
    tags: ["leads", "assignment"],
    examples: ["Which leads are assigned to me?", '{"skill":"my-leads","input":{"pageSize":10}}'],
  },
  {
    id: "lead-timeline",
    name: "Get a lead's timeline",
    description:
      "Lists the events of one lead: intake, messages, calls and automation steps, newest first. Input: { leadId: string, pageSize?: 1-50 }.",
    tags: ["leads", "events"],
    examples: [
      "Show the timeline of lead 01JABCDEFGHJKMNPQRSTVWXYZ0",
      '{"skill":"lead-timeline","input":{"leadId":"01JABCDEFGHJKMNPQRSTVWXYZ0"}}',
    ],
  },
  {
    id: "send-message",
    name: "Send a message to a lead",
    description:
      "Sends an SMS to a lead through the messaging pipeline, with opt-out, quiet-hours and billing checks. Input: { leadId: string, body: string }.",
    tags: ["messaging", "sms"],
    examples: [
      'Text lead 01JABCDEFGHJKMNPQRSTVWXYZ0: "Thanks for reaching out, when is a good time to call?"',
      '{"skill":"send-message","input":{"leadId":"01JABCDEFGHJKMNPQRSTVWXYZ0","body":"Hi!"}}',
    ],
  },
  {
    id: "automation-health",
    name: "List automations and their health",
    description:
      "Lists the organization's automations with their last run status and failures. Input: { onlyFailing?: boolean }.",
    tags: ["automations"],
    examples: ["Which automations are failing?", '{"skill":"automation-health","input":{"onlyFailing":true}}'],
  },
] as const;

export type AgentSkillId = (typeof agentSkills)[number]["id"];

/** A2A protocol versions the card can be read in (`A2A-Version`); 1.0 unless a 0.3 client asks. */
export type CardProtocol = "1.0" | "0.3";

/** The bearer credential both card shapes declare: only the wrapping differs between 0.3 and 1.0. */
const bearer = {
  scheme: "bearer",
  bearerFormat: "JWT or sk_ API key",
  description: "A user access token (JWT) or an organization API key beginning sk_.",
};

/** Which card shape a request asks for: `A2A-Version: 0.3` (or 0.3.x) gets the 0.3 card, anything else the 1.0 card. */
export function cardProtocolOf(requestedVersion: string | undefined): CardProtocol {
  return requestedVersion?.trim().startsWith("0.3") ? "0.3" : "1.0";
}

/**
 * The public A2A agent card, in the shape of the protocol version asked for.
 * Both list the 1.0 and 0.3 JSON-RPC interfaces (`supportedInterfaces`) and keep
 * the 0.3 discovery fields (`url`, `preferredTransport`, `additionalInterfaces`)
 * that 1.0 deprecates but still lets a card carry, so a 0.3 client that sends no
 * `A2A-Version` still finds `/a2a`. What cannot be both is the security
 * declaration: 1.0 wraps each scheme by kind (`httpAuthSecurityScheme`) and names
 * `securityRequirements`; 0.3 writes OpenAPI's `type: "http"` and `security`.
 */
export function agentCard(protocol: CardProtocol = "1.0") {
  const baseUrl = config.publicBaseUrl.replace(/\/$/, "");
  const url = `${baseUrl}/a2a`;
  const common = {
    name: "Lead Management and Messaging Agent",
    description:
      "Works with a business's sales leads: summarizes response performance, finds leads (and the caller's own assigned leads), reads a lead's timeline, texts a lead and reports automation health. Acts only within the caller's organization and permissions. Pick a skill with a data part { skill, input } (or message metadata { skill, input }); plain text is matched by keywords. Every message gets a task: completed with a text part for people and a data part with the structured result, or input-required (listing the skills) when no skill could be told from it.",
    url,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [{ url, transport: "JSONRPC" }],
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    provider: { organization: "Lead Management and Messaging API", url: baseUrl },
    version: "1.0.0",
    documentationUrl: `${baseUrl}/openapi.json`,
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: agentSkills.map((skill) => ({
      ...skill,
      tags: [...skill.tags],
      examples: [...skill.examples],
      inputModes: ["text/plain", "application/json"],
      outputModes: ["text/plain", "application/json"],
    })),
  };
  if (protocol === "0.3") {
    return {
      protocolVersion: "0.3.0",
      ...common,
      securitySchemes: { bearer: { type: "http", ...bearer } },
      security: [{ bearer: [] }],
    };
  }
  return {
    ...common,
    securitySchemes: { bearer: { httpAuthSecurityScheme: bearer } },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
  };
}
