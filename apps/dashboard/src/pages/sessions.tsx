import type { Dashboard } from "@verbatim/contract";
import { call, csrf, dashboardApi } from "../api.ts";
import { ErrorState, formatTime, Loading, Page, useAction, useLoad } from "../ui.tsx";

type SessionSummary = Dashboard.components["schemas"]["SessionSummary"];

export function Sessions({ onSignedOut }: { onSignedOut: () => void }) {
  const sessions = useLoad(async () => (await call(dashboardApi.GET("/sessions"))).data.sessions);
  return (
    <Page title="Sessions">
      <p>
        Everyone signed in to this account's dashboard, newest first. A session lasts 12 hours at most, and one opened
        with an API key ends when that key is revoked or rotated. An ended session is refused from its next request on.
        A session opened with an API key can end only sessions opened with a key; one opened by a sign-in link can end
        any.
      </p>
      <ErrorState failure={sessions.failure} />
      {sessions.loading && !sessions.data ? <Loading what="sessions" /> : null}
      {sessions.data ? (
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Session</th>
                <th scope="col">Opened with</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {sessions.data.map((session) => (
                <SessionRow
                  key={session.id}
                  session={session}
                  onEnded={session.current ? onSignedOut : sessions.reload}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <button type="button" class="secondary" onClick={sessions.reload}>
        Refresh
      </button>
    </Page>
  );
}

function SessionRow({ session, onEnded }: { session: SessionSummary; onEnded: () => void }) {
  const action = useAction();
  const end = () => {
    const question = session.current
      ? "End this session? You are signed out."
      : `End session ${session.id}? It is refused from its next request on.`;
    if (!confirm(question)) return;
    action.run(async () => {
      await call(
        dashboardApi.DELETE("/sessions/{sessionId}", {
          params: { header: csrf(), path: { sessionId: session.id } },
        }),
      );
      onEnded();
    });
  };
  return (
    <tr>
      <th scope="row">
        <span class="mono">{session.id}</span>
        {session.current ? (
          <>
            {" "}
            <span class="badge current">this session</span>
          </>
        ) : null}
      </th>
      <td data-label="Opened with">
        {session.signed_in_with === "link" ? (
          "Sign-in link"
        ) : (
          <>
            API key <span class="mono">{session.api_key?.prefix}</span>
          </>
        )}
      </td>
      <td data-label="Created">{formatTime(session.created_at)}</td>
      <td data-label="Last used">{session.last_used_at ? formatTime(session.last_used_at) : "Not since sign-in"}</td>
      <td data-label="Expires">{formatTime(session.expires_at)}</td>
      <td>
        {session.can_end ? (
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={end}
            aria-label={session.current ? "End this session" : `End session ${session.id}`}
          >
            End
          </button>
        ) : (
          <span class="muted">Only a session opened by a sign-in link can end it</span>
        )}
        <ErrorState failure={action.failure} />
      </td>
    </tr>
  );
}
