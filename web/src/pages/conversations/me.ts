import { useEffect, useState } from "preact/hooks";
import { api } from "../../api/client";
import type { User } from "./team";

/** The signed-in user's profile (an API token has none: null); undefined while it loads. */
export function useMe(): User | null | undefined {
  const [me, setMe] = useState<User | null | undefined>(undefined);
  useEffect(() => {
    void api
      .GET("/users/me")
      .then(({ data }) => setMe(data ?? null))
      .catch(() => setMe(null));
  }, []);
  return me;
}
