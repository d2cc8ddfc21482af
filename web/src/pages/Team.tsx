import { useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { ConfirmDelete } from "../ConfirmDelete";
import { Pager } from "../Pager";
import { usePaged } from "../usePaged";

type UserPage = paths["/users/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type InvitationPage = paths["/invitations/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type Role = "owner" | "admin" | "agent";
const roles: Role[] = ["owner", "admin", "agent"];

/** The organization's people: who they are, their roles, invitations; owners and admins change them. */
export function Team() {
  const users = usePaged<UserPage>((continuationToken) =>
    api.POST("/users/all/my", { body: { pageSize: 50, continuationToken } }),
  );
  const invitations = usePaged<InvitationPage>((continuationToken) =>
    api.POST("/invitations/all/my", {
      body: { pageSize: 20, continuationToken, filters: [{ field: "status", value: "Pending" }] },
    }),
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const act = async (done: string, call: () => Promise<{ error?: unknown }>) => {
    const { error: problem } = await call();
    if (problem) return setError(problemText(problem));
    setError(null);
    setNotice(done);
    users.reload();
    invitations.reload();
  };
  return (
    <>
      <h1>Team</h1>
      {(error ?? users.error) && (
        <p role="alert" class="error">
          {error ?? users.error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      <InviteForm
        onInvite={(email, role) =>
          act(`Invitation sent to ${email}.`, () => api.POST("/invitations", { body: { email, role } }))
        }
      />
      {users.page && (
        <section aria-labelledby="members">
          <h2 id="members">Members</h2>
          <table data-testid="members" class="stacked">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {users.page.items.map((user) => (
                <tr>
                  <th scope="row">{user.name}</th>
                  <td>{user.email}</td>
                  <td>
                    <select
                      aria-label={`Role of ${user.name}`}
                      value={user.role}
                      disabled={user.status !== "Active"}
                      onChange={(event) => {
                        const role = event.currentTarget.value as Role;
                        void act(`${user.name} is now ${role}.`, () =>
                          api.PUT("/users/{id}/role", { params: { path: { id: user.id } }, body: { role } }),
                        );
                      }}
                    >
                      {roles.map((role) => (
                        <option value={role}>{role}</option>
                      ))}
                    </select>
                  </td>
                  <td>{user.status}</td>
                  <td>
                    {user.status === "Active" && (
                      <button
                        type="button"
                        class="secondary"
                        onClick={() => {
                          if (
                            confirm(
                              `Deactivate ${user.name}? Their sessions and the API keys they created stop working.`,
                            )
                          ) {
                            void act(`${user.name} was deactivated.`, () =>
                              api.POST("/users/{id}/deactivate", { params: { path: { id: user.id } } }),
                            );
                          }
                        }}
                      >
                        Deactivate
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager
            label="Member pages"
            tokens={users.tokens}
            next={users.page.continuationToken}
            onChange={users.setTokens}
          />
        </section>
      )}
      {invitations.page && invitations.page.items.length > 0 && (
        <section aria-labelledby="pending">
          <h2 id="pending">Pending invitations</h2>
          <ul class="invitations" data-testid="invitations">
            {invitations.page.items.map((invitation) => (
              <li key={invitation.id} data-invitation-id={invitation.id}>
                <span>
                  {invitation.email} as {invitation.role}, until {new Date(invitation.expiresAt).toLocaleString()}
                </span>
                {/* Its link stops working at once; the person can be invited again. */}
                <ConfirmDelete
                  label="Revoke"
                  subject={`the invitation to ${invitation.email}`}
                  onDelete={() =>
                    void act(`The invitation to ${invitation.email} was revoked.`, () =>
                      api.DELETE("/invitations/{id}", { params: { path: { id: invitation.id } } }),
                    )
                  }
                />
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

function InviteForm({ onInvite }: { onInvite: (email: string, role: Role) => Promise<void> }) {
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("agent");
  return (
    <section aria-labelledby="invite">
      <h2 id="invite">Invite someone</h2>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          if (email.trim()) void onInvite(email.trim(), role).then(() => setEmail(""));
        }}
      >
        <label>
          E-mail
          <input type="email" required value={email} onInput={(event) => setEmail(event.currentTarget.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(event) => setRole(event.currentTarget.value as Role)}>
            {roles.map((option) => (
              <option value={option}>{option}</option>
            ))}
          </select>
        </label>
        <button type="submit">Send invitation</button>
      </form>
      <p class="hint">The link in the e-mail works once and expires after 72 hours.</p>
    </section>
  );
}
