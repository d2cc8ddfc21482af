import * as v from "valibot";
import type { Actor, Permission } from "#core/auth/actor";
import type { AnySchema } from "#core/http/operation";

/** What a skill answers: a sentence or two for people and the structured result for agents. */
export interface SkillResult {
  text: string;
  data: Record<string, unknown>;
}

/**
 * One agent skill. The A2A executor checks `permissions` (the permissions of
 * the operations the skill performs, on top of `agent:use`) and validates the
 * input with `input` before `run` is called with the caller's Actor.
 */
export interface Skill<TSchema extends AnySchema = AnySchema> {
  permissions: readonly Permission[];
  input: TSchema;
  /** Best-effort input from plain text (the keyword fallback); validated like structured input. */
  fromText(text: string): Record<string, unknown>;
  run(actor: Actor, input: v.InferOutput<TSchema>): Promise<SkillResult>;
}

/** Declares a skill with its input type inferred from the schema. */
/* @__NO_SIDE_EFFECTS__ */
export function defineSkill<TSchema extends AnySchema>(skill: Skill<TSchema>): Skill<TSchema> {
  return skill;
}

/** A ULID anywhere in the text (lead ids are ULIDs). */
export const ulidInText = /\b[0-9A-HJKMNP-TV-Z]{26}\b/i;

/** The first quoted passage ("…", '…', “…”), for search terms and message bodies. */
export function quotedIn(text: string): string | undefined {
  const match = /"([^"]+)"|“([^”]+)”|(?:^|\s)'([^']+)'(?=$|[\s.,!?])/.exec(text);
  return match?.[1] ?? match?.[2] ?? match?.[3];
}
