import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { entities, keys } from "#core/db/keys";
import { putIfNew, table } from "#core/db/items";
import { keyOrder, listPage, listQuerySchema, prefixQuery, type ListResource } from "#core/db/list";
import { NotFoundError } from "#core/errors";
import { newId, nowIso, timestamp } from "#core/shared/ids";
import type { Page, PagingQuery } from "#core/shared/paging";
import { maxChars } from "#core/shared/validation";

/** Body of `POST /canned-replies`. */
export const CreateCannedReplySchema = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, "Give the reply a name."), maxChars(80)),
  body: v.pipe(v.string(), v.trim(), v.minLength(1, "A canned reply needs a text."), maxChars(1600)),
});

export const CannedReplySchema = v.object({
  id: v.string(),
  /** What agents pick it by ("Quote follow-up"). */
  name: v.string(),
  body: v.string(),
  createdByUserId: v.nullable(v.string()),
  createdAt: timestamp,
});
export type CannedReply = v.InferOutput<typeof CannedReplySchema>;

const listResource: ListResource<CannedReply> = {
  name: "canned replies",
  fields: {
    name: { get: (reply) => reply.name, kind: "string", sort: true, search: true },
    body: { get: (reply) => reply.body, kind: "string", search: true },
    createdAt: { get: (reply) => reply.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (reply) => reply.id,
  fromItem: (item) => ({
    id: item.id as string,
    name: item.name as string,
    body: item.body as string,
    createdByUserId: (item.createdByUserId as string | null) ?? null,
    createdAt: item.createdAt as string,
  }),
  candidates: (organizationId) => prefixQuery(keys.cannedReplyPrefix(organizationId)),
  orders: { createdAt: keyOrder(keys.cannedReplyPrefix) },
};

export const ListCannedRepliesSchema = listQuerySchema(listResource);

/** Texts an organization keeps for answers its people give again and again; the inbox offers them beside the reply. */

export async function create(actor: Actor, input: v.InferOutput<typeof CreateCannedReplySchema>): Promise<CannedReply> {
  const reply: CannedReply = {
    id: newId(),
    name: input.name,
    body: input.body,
    createdByUserId: actor.userId ?? null,
    createdAt: nowIso(),
  };
  await putIfNew({ ...keys.cannedReply(actor.organizationId, reply.id), entity: entities.cannedReply, ...reply });
  return reply;
}

export const list = (actor: Actor, query: PagingQuery): Promise<Page<CannedReply>> =>
  listPage(listResource, actor.organizationId, query);

export async function remove(actor: Actor, cannedReplyId: string): Promise<void> {
  const { Attributes } = await table.delete({
    Key: keys.cannedReply(actor.organizationId, cannedReplyId),
    ReturnValues: "ALL_OLD",
  });
  if (!Attributes) throw new NotFoundError("Canned reply", cannedReplyId);
}
