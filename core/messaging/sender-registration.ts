import { SenderNotRegisteredError } from "#core/errors";
import type { PhoneNumber } from "#core/messaging/phone-number-schema";
import { storedSettingsItem } from "#core/messaging/settings-item";
import { environmentNames } from "#stacks/definitions";

/**
 * 10DLC gating of senders: carriers block A2P SMS/MMS from a long code that is
 * not on an approved campaign (Twilio 30034), so where registration is
 * required such a number is never handed a message. Required on a deployed
 * stage (`A2P_REGISTRATION_REQUIRED=true`, set by the deploy) or by the
 * organization's own `requireRegisteredSenders` setting (the local stack and
 * tests turn it on per organization).
 */
export async function registrationRequired(organizationId: string): Promise<boolean> {
  if (process.env[environmentNames.a2pRegistrationRequired] === "true") return true;
  return (await storedSettingsItem.read(organizationId))?.requireRegisteredSenders === true;
}

/** A number that may carry A2P traffic: attached to a campaign the carriers approved. */
export const registeredForA2p = (number: PhoneNumber): boolean => number.registration?.status === "Approved";

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
          "No sender number this message may use is unpaused and on an approved 10DLC campaign; attach one (PUT /phone-numbers/{id}/campaign) or resume it.",
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
    throw new SenderNotRegisteredError(
      `${sender.phoneNumber} is not attached to an approved 10DLC campaign, so carriers would block this message. Attach it (PUT /phone-numbers/${sender.id}/campaign) or send from a registered number.`,
    );
  }
  if (numbers.some((number) => number.capabilities.includes(capability) && registeredForA2p(number))) return;
  throw new SenderNotRegisteredError(
    "None of the organization's numbers is attached to an approved 10DLC campaign, so carriers would block this message. Register a brand and campaign (POST /carrier-registration/brand, /campaigns) and attach a number.",
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
