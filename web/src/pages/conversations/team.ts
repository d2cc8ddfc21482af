import { useEffect, useState } from "preact/hooks";
import { api } from "../../api/client";
import type { paths } from "../../api/schema";

export type User = paths["/users/me"]["get"]["responses"]["200"]["content"]["application/json"];

/**
 * The organization's people (first 200), for assignee names and the assign menu; null until read. One request per
 * page that shows assignees; an organization larger than that shows ids past the 200th.
 */
export function useTeam(): User[] | null {
  const [team, setTeam] = useState<User[] | null>(null);
  useEffect(() => {
    void api
      .POST("/users/all/my", { body: { pageSize: 200 } })
      .then(({ data }) => setTeam(data?.items ?? []))
      .catch(() => setTeam([]));
  }, []);
  return team;
}

/** The name a person reads for an assignee: theirs, "you" for the signed-in user, or "Unassigned". */
export function assigneeName(team: User[] | null, userId: string | null, me?: string | null): string {
  if (!userId) return "Unassigned";
  if (userId === me) return "You";
  return team?.find((user) => user.id === userId)?.name ?? "Someone else";
}
