import * as v from "valibot";
import { ConsentVerificationUnavailable } from "#core/consent/trustedform";
import { environmentNames } from "#stacks/definitions";

/** Jornaya's API host; credentials (the account code) are never sent anywhere else. */
export const JORNAYA_API = "https://api.leadid.com";

/** What Jornaya's Authentication API established about one LeadiD token, in the terms consent decisions use. */
export type LeadiDCheck =
  | { outcome: "Verified" }
  /** `authentic: 0`, or not a LeadiD token at all (every token is 36 characters: Jornaya's own pre-check). */
  | { outcome: "NotFound"; reason: string }
  /** Jornaya refused our request (a wrong account code, a malformed query): a configuration problem, not the lead's. */
  | { outcome: "Refused"; reason: string };

const AnswerSchema = v.object({
  authenticate: v.object({ authentic: v.picklist([0, 1]), token: v.nullish(v.string()) }),
});

/** Why a token may answer `authentic: 0`, as Jornaya documents it ("How to Check the Authenticity of a LeadiD Token"). */
const NOT_AUTHENTIC =
  "Jornaya does not authenticate this LeadiD token: it was not issued by Jornaya, is expired, was queried too many times, or belongs to a consumer who opted out.";

/**
 * Asks Jornaya's Authentication API whether a LeadiD token is genuine: `GET /Authenticate?lac=<account code>&id=<token>`
 * (JSON answer `{ "authenticate": { "authentic": 1|0, "token": … } }`). The account code is the whole credential of
 * this API; it does not match the lead's data (docs/decisions.md, issue 30). Throws ConsentVerificationUnavailable
 * when Jornaya does not answer (network, timeout, 429, 5xx, an unreadable answer): the caller retries.
 */
export async function authenticateLeadiD(
  request: { token: string; accountCode: string },
  timeoutMs = 10_000,
): Promise<LeadiDCheck> {
  if (request.token.trim().length !== 36)
    return { outcome: "NotFound", reason: "Not a LeadiD token (every LeadiD token is 36 characters)." };
  const base = (process.env[environmentNames.jornayaApiUrl] || JORNAYA_API).replace(/\/$/, "");
  const url = `${base}/Authenticate?${new URLSearchParams({ lac: request.accountCode, id: request.token.trim() })}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: "GET",
      headers: { Accept: "application/json" },
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new ConsentVerificationUnavailable((error as Error).message, "Jornaya");
  }
  const text = await response.text().catch(() => "");
  if (response.status === 429 || response.status >= 500)
    throw new ConsentVerificationUnavailable(`HTTP ${response.status}`, "Jornaya");
  if (response.status !== 200)
    return { outcome: "Refused", reason: `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}` };
  const parsed = v.safeParse(AnswerSchema, parseJson(text));
  if (!parsed.success)
    throw new ConsentVerificationUnavailable(`unreadable answer: ${parsed.issues[0]?.message}`, "Jornaya");
  return parsed.output.authenticate.authentic === 1
    ? { outcome: "Verified" }
    : { outcome: "NotFound", reason: NOT_AUTHENTIC };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
