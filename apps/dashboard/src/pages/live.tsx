import type { Schema } from "@verbatim/contract";
import { useEffect } from "preact/hooks";
import { call, v2Api } from "../api.ts";
import { ErrorState, formatNumber, formatTime, Loading, Page, useAction, useLoad } from "../ui.tsx";

type LiveSession = Schema<"LiveSession">;

/** How often the running sessions are read again while the page is open: their seconds and credits grow. */
const refreshMs = 5_000;

/** The account's live sessions: the running ones, each with what it heard and cost so far, and the latest over. */
export function Live() {
  const running = useLoad(async () => (await call(v2Api.GET("/live", { params: { query: { status: "live" } } }))).data);
  const waiting = useLoad(
    async () => (await call(v2Api.GET("/live", { params: { query: { status: "waiting" } } }))).data,
  );
  const recent = useLoad(async () => (await call(v2Api.GET("/live", { params: { query: { limit: 10 } } }))).data);
  useEffect(() => {
    const timer = setInterval(() => {
      running.reload();
      waiting.reload();
    }, refreshMs);
    return () => clearInterval(timer);
  }, [running.reload, waiting.reload]);
  const reload = () => {
    running.reload();
    waiting.reload();
    recent.reload();
  };
  const active = [...(waiting.data?.sessions ?? []), ...(running.data?.sessions ?? [])];
  const over = (recent.data?.sessions ?? []).filter(
    (session) => session.status !== "live" && session.status !== "waiting",
  );
  const limits = running.data?.limits;
  return (
    <Page title="Live sessions">
      <section aria-labelledby="running-sessions">
        <h2 id="running-sessions">Running</h2>
        <ErrorState failure={running.failure ?? waiting.failure} />
        {running.loading && !running.data ? <Loading what="live sessions" /> : null}
        {limits ? (
          <p class="muted">
            {active.length} of {limits.max_sessions} sessions at once; each stops after at most {limits.max_minutes}{" "}
            minutes of audio. Start one with <code>POST /api/v2/live</code>.
          </p>
        ) : null}
        {running.data && active.length === 0 ? <p>No session is running.</p> : null}
        <ul class="cards">
          {active.map((session) => (
            <SessionItem key={session.id} session={session} onChanged={reload} />
          ))}
        </ul>
      </section>
      <section aria-labelledby="ended-sessions">
        <h2 id="ended-sessions">Recently over</h2>
        <ErrorState failure={recent.failure} />
        {recent.data && over.length === 0 ? <p>None yet.</p> : null}
        <ul class="cards">
          {over.map((session) => (
            <SessionItem key={session.id} session={session} onChanged={reload} />
          ))}
        </ul>
      </section>
    </Page>
  );
}

function SessionItem({ session, onChanged }: { session: LiveSession; onChanged: () => void }) {
  const action = useAction();
  const label = session.source.title ?? session.source.url;
  const stop = () => {
    if (!confirm(`Stop the live session of ${label}? What it heard is charged and kept in the library.`)) return;
    action.run(async () => {
      await call(v2Api.DELETE("/live/{sessionId}", { params: { path: { sessionId: session.id } } }));
      onChanged();
    });
  };
  const running = session.status === "live" || session.status === "waiting";
  return (
    <li class="card" aria-labelledby={`live-${session.id}`}>
      <h3 id={`live-${session.id}`} class="break">
        {label} <span class={`badge ${running ? "active" : "paused"}`}>{session.status}</span>
      </h3>
      <dl class="facts">
        <div>
          <dt>Stream</dt>
          <dd class="break">
            {session.source.url} ({session.source.platform}, {session.source.reading})
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTime(session.started_at ?? session.created_at)}</dd>
        </div>
        <div>
          <dt>Audio</dt>
          <dd>{Math.round(session.audio_seconds)} s</dd>
        </div>
        <div>
          <dt>Credits</dt>
          <dd>{formatNumber(session.credits_spent)}</dd>
        </div>
        {session.end_reason ? (
          <div>
            <dt>Ended</dt>
            <dd>
              {formatTime(session.ended_at)} ({session.end_reason})
            </dd>
          </div>
        ) : null}
        {session.library ? (
          <div>
            <dt>Library</dt>
            <dd>
              <code>{session.library.id}</code>
            </dd>
          </div>
        ) : null}
      </dl>
      {session.error ? (
        <p class="warning">
          Failed: {session.error.message} (<code>{session.error.code}</code>)
        </p>
      ) : null}
      {running ? (
        <div class="actions">
          <button type="button" class="danger" disabled={action.busy} onClick={stop}>
            Stop <span class="visually-hidden">{label}</span>
          </button>
        </div>
      ) : null}
      <ErrorState failure={action.failure} />
    </li>
  );
}
