import { defineEntity } from "#core/db/entity";
import { messagingKeys } from "#core/db/keys/messaging";
import { org } from "#core/db/keys/shared";

/** What identifies a phone number: its organization and id (the rest of the stored number beside). */
type StoredPhoneNumber = { organizationId: string; id: string } & Record<string, unknown>;

/**
 * The PhoneNumber entity (docs/data-model.md): one item per number the organization holds, under it, in the order
 * of its ULID id. No secondary index: senders and the list read the organization's numbers by key prefix.
 */
export const PhoneNumberEntity = defineEntity({
  name: "PhoneNumber",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) =>
    messagingKeys.phoneNumber(organizationId, id),
  identity: ({ organizationId, id }: StoredPhoneNumber) => ({ organizationId, id }),
  /** The organization's numbers, oldest first (ULID ids). */
  collection: {
    name: "byCreation",
    pk: (number: StoredPhoneNumber) => org(number.organizationId),
    sk: (number: StoredPhoneNumber) => `PHONENUMBER#${number.id ?? ""}`,
  },
  indexes: {},
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
