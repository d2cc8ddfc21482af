/**
 * The pure choices of routing strategies (docs/routing.md), given the pool members who may take the lead now, in
 * pool order. Storage (the ticket counter, the last-assigned marks) stays in core/routing/index.ts.
 */

/** Round robin (no weights) or weighted: ticket t goes to turn t of a cycle where a member of weight w has w turns. */
export function inTurn<T extends { userId: string }>(
  eligible: T[],
  ticket: number,
  weights?: Record<string, number>,
): T {
  const turns = weights ? eligible.flatMap((member) => Array<T>(weights[member.userId] ?? 1).fill(member)) : eligible;
  return turns[ticket % turns.length]!;
}

/** The member routing gave a lead longest ago (ISO times by user id); one never given any comes first, ties in pool order. */
export function leastRecentlyAssigned<T extends { userId: string }>(
  eligible: T[],
  lastAssigned: Map<string, string>,
): T {
  return eligible.reduce((best, member) =>
    (lastAssigned.get(member.userId) ?? "") < (lastAssigned.get(best.userId) ?? "") ? member : best,
  );
}
