import { defineEntity } from "#core/db/entity";
import { listedOwnedEntity } from "#core/db/entities/owned";
import { messagingKeys } from "#core/db/keys/messaging";

/**
 * The PhoneNumber entity (docs/data-model.md): one item per number the organization holds, in a partition of its own
 * (its pacing state is written on every send, core/messaging/pacing.ts), listed by creation (ULID ids) from gsi8:
 * senders and the list read the organization's numbers there.
 */
export const PhoneNumberEntity = listedOwnedEntity("PhoneNumber", messagingKeys.phoneNumber, {
  index: "phoneNumbersByCreation",
  partition: "PHONENUMBERS",
  prefix: "PHONENUMBER#",
});

/** A stored route: which organization's number an E.164 number is (released: kept for late receipts). */
type StoredNumberRoute = { phoneNumber: string } & Record<string, unknown>;

/**
 * The NumberRoute entity: number → organization (not tenant data; carrier callbacks name only our number). One item
 * per E.164 number, claimed by the organization that adds it and marked released when it is deleted.
 */
export const NumberRouteEntity = defineEntity({
  name: "NumberRoute",
  attributes: [],
  key: ({ phoneNumber }: { phoneNumber: string }) => messagingKeys.numberRoute(phoneNumber),
  identity: ({ phoneNumber }: StoredNumberRoute) => ({ phoneNumber }),
  indexes: {},
});

type PhoneNumberLane = { organizationId: string; id: string; lane: number };

/**
 * A lane's pacing state (lanes 1 and up of a number faster than one lane, core/messaging/pacing.ts): written by its
 * sends and a carrier's throttle of the number, kept a week after its last write (TTL `expiresAt`), so a deleted
 * number's lanes go by themselves.
 */
export const PhoneNumberLaneEntity = defineEntity({
  name: "PhoneNumberLane",
  attributes: [],
  key: ({ organizationId, id, lane }: PhoneNumberLane) => messagingKeys.phoneNumberLane(organizationId, id, lane),
  identity: ({ organizationId, id, lane }: PhoneNumberLane) => ({ organizationId, id, lane }),
  indexes: {},
});
