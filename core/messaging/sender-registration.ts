import { SenderNotRegisteredError } from "#core/errors";
import type { PhoneNumber } from "#core/messaging/phone-number-schema";
import { storedSettingsItem } from "#core/messaging/settings-item";
import { parsePhone } from "#core/shared/phone";
import { environmentNames } from "#stacks/definitions";

/**
 * Registration gating of senders: carriers block A2P SMS/MMS from a long code that is
 * not on an approved 10DLC campaign (Twilio 30034), and from a toll-free number
 * whose toll-free verification is not approved (30032), so where registration is
 * required such a number is never handed a message. Required on a deployed
 * stage (`A2P_REGISTRATION_REQUIRED=true`, set by the deploy) or by the
 * organization's own `requireRegisteredSenders` setting (the local stack and
 * tests turn it on per organization).
 */
export async function registrationRequired(organizationId: string): Promise<boolean> {
  if (process.env[environmentNames.a2pRegistrationRequired] === "true") return true;
  return (await storedSettingsItem.read(organizationId))?.requireRegisteredSenders === true;
}

/** What registers a number for A2P traffic: a toll-free number's own verification, a long code's 10DLC campaign. */
export const registrationKind = (number: Pick<PhoneNumber, "phoneNumber">) =>
  parsePhone(number.phoneNumber)?.tollFree ? "TollFreeVerification" : "TenDlcCampaign";

/**
 * A number that may carry A2P traffic: approved by what registers its kind of number (a toll-free number on a 10DLC
 * campaign, were one stored, is not: carriers do not carry it so).
 */
export const registeredForA2p = (number: PhoneNumber): boolean =>
  number.registration?.status === "Approved" && number.registration.kind === registrationKind(number);

/** The numbers sender choice may use: unpaused (number health), and registered where registration is required. */
export function eligibleSenders<T extends PhoneNumber>(numbers: T[], registrationIsRequired: boolean): T[] {
  return numbers.filter((number) => !number.paused && (!registrationIsRequired || registeredForA2p(number)));
}

export type SenderRefusal = { code: "SenderNotRegistered" | "SenderPaused"; reason: string };

/** Why a queued message has no sender it may use (its numbers exist, none is eligible). */
export function senderRefusal(registrationIsRequired: boolean): SenderRefusal {
  return registrationIsRequired
    ? {
        code: "SenderNotRegistered",
        reason:
          "No sender number this message may use is unpaused and registered (a long code on an approved 10DLC campaign, a toll-free number with an approved toll-free verification); register one (PUT /phone-numbers/{id}/campaign, POST /phone-numbers/{id}/toll-free-verification) or resume it.",
      }
    : {
        code: "SenderPaused",
        reason:
          "Every sender number this message may use is paused for carrier filtering; resume one (POST /phone-numbers/{id}/resume).",
      };
}

/**
 * `POST /messages`' check: the caller's sender, or else some number of the pool
 * with the capability, must be registered; refused before anything is stored.
 */
export function assertRegisteredSender(
  numbers: PhoneNumber[],
  sender: PhoneNumber | undefined,
  capability: "sms" | "mms",
): void {
  if (sender) {
    if (registeredForA2p(sender)) return;
    if (registrationKind(sender) === "TollFreeVerification") {
      const status = sender.registration?.kind === "TollFreeVerification" ? sender.registration.status : undefined;
      throw new SenderNotRegisteredError(
        `${sender.phoneNumber} is a toll-free number ${status ? `whose toll-free verification is ${status}` : "without a toll-free verification"}, so carriers would block this message. ${status === "Rejected" ? "Read the reason (GET" : "Verify it (POST"} /phone-numbers/${sender.id}/toll-free-verification) or send from a registered number.`,
      );
    }
    throw new SenderNotRegisteredError(
      `${sender.phoneNumber} is not attached to an approved 10DLC campaign, so carriers would block this message. Attach it (PUT /phone-numbers/${sender.id}/campaign) or send from a registered number.`,
    );
  }
  if (numbers.some((number) => number.capabilities.includes(capability) && registeredForA2p(number))) return;
  throw new SenderNotRegisteredError(
    "None of the organization's numbers is registered (a long code on an approved 10DLC campaign, a toll-free number with an approved toll-free verification), so carriers would block this message. Register a brand and campaign (POST /carrier-registration/brand, /campaigns) and attach a number, or verify a toll-free number (POST /phone-numbers/{id}/toll-free-verification).",
  );
}

/**
 * The numbers a conversation of `agent` may go out from when nothing sticks it to one (texts and calls alike): the
 * agent's own numbers when they have any, else the shared pool's (an agent's number reaches nobody else's leads), else
 * any rather than none. `theirs` says the agent's own were chosen.
 */
export function senderPool<T extends Pick<PhoneNumber, "assignedUserId">>(
  numbers: T[],
  agent: string | null | undefined,
): { pool: T[]; theirs: boolean } {
  const theirs = agent ? numbers.filter((number) => number.assignedUserId === agent) : [];
  if (theirs.length > 0) return { pool: theirs, theirs: true };
  const shared = numbers.filter((number) => !number.assignedUserId);
  return { pool: shared.length > 0 ? shared : numbers, theirs: false };
}
