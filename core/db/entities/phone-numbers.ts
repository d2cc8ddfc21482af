import { defineEntity } from "#core/db/entity";
import { ownedEntity } from "#core/db/entities/owned";
import { messagingKeys } from "#core/db/keys/messaging";

/**
 * The PhoneNumber entity (docs/data-model.md): one item per number the organization holds, under it, in the order
 * of its ULID id. No secondary index: senders and the list read the organization's numbers by key prefix.
 */
export const PhoneNumberEntity = ownedEntity("PhoneNumber", messagingKeys.phoneNumber, "PHONENUMBER#");

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
