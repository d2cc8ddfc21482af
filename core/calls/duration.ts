import { CallEntity } from "#core/db/entities/calls";

/**
 * Talk seconds of a completed call, from the call record (event records carry
 * no duration): what the analytics counting adds up. A small module of its
 * own, so the analytics consumer reads it without loading call placement.
 */
export async function talkSeconds(organizationId: string, callId: string): Promise<number> {
  const Item = await CallEntity.get({ organizationId, id: callId }, { attributes: ["duration"] });
  const duration = Number(Item?.duration ?? 0);
  return Number.isFinite(duration) && duration > 0 ? Math.round(duration) : 0;
}
