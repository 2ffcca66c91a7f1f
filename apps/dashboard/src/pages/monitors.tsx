import type { Schema } from "@verbatim/contract";
import { useState } from "preact/hooks";
import { call, csrf, dashboardApi, v2Api } from "../api.ts";
import { ErrorState, formatTime, Loading, Page, Secret, useAction, useLoad } from "../ui.tsx";

type Monitor = Schema<"Monitor">;
type MonitorEvent = Schema<"MonitorEvent">;
type ChannelTab = Schema<"ChannelTab">;
type CheckInterval = Schema<"CheckInterval">;

const tabs: ChannelTab[] = ["videos", "shorts", "live"];
const intervals: { minutes: CheckInterval; label: string }[] = [
  { minutes: 15, label: "Every 15 minutes" },
  { minutes: 60, label: "Every hour" },
  { minutes: 360, label: "Every 6 hours" },
  { minutes: 1440, label: "Every day" },
];

export function Monitors() {
  const monitors = useLoad(async () => (await call(v2Api.GET("/monitors"))).data);
  const [created, setCreated] = useState<{ secret: string; target: string; baseline: number } | undefined>(undefined);
  const [shown, setShown] = useState<string | undefined>(undefined);
  return (
    <Page title="Monitors">
      <CreateMonitor
        onCreated={(monitor) => {
          setCreated({ secret: monitor.webhook_secret, target: monitor.target, baseline: monitor.baseline_count });
          monitors.reload();
        }}
      />
      {created ? (
        <div class="card highlight" role="status">
          <p>
            <strong>Monitor of {created.target} created</strong> with a baseline of {created.baseline} videos. Its
            webhook secret is shown only now.
          </p>
          <Secret label="Monitor webhook secret" value={created.secret} />
          <button type="button" class="secondary" onClick={() => setCreated(undefined)}>
            Done
          </button>
        </div>
      ) : null}
      <section aria-labelledby="monitor-list">
        <h2 id="monitor-list">Monitors</h2>
        <ErrorState failure={monitors.failure} />
        {monitors.loading && !monitors.data ? <Loading what="monitors" /> : null}
        {monitors.data ? (
          <>
            <p class="muted">
              {monitors.data.monitors.length} of {monitors.data.limits.max_monitors} monitors.
            </p>
            {monitors.data.monitors.length === 0 ? <p>No monitors yet.</p> : null}
            <ul class="cards">
              {monitors.data.monitors.map((monitor) => (
                <MonitorItem
                  key={monitor.id}
                  monitor={monitor}
                  eventsShown={shown === monitor.id}
                  onToggleEvents={() => setShown(shown === monitor.id ? undefined : monitor.id)}
                  onChanged={monitors.reload}
                />
              ))}
            </ul>
          </>
        ) : null}
      </section>
    </Page>
  );
}

function CreateMonitor({ onCreated }: { onCreated: (monitor: Schema<"CreatedMonitor">) => void }) {
  const [target, setTarget] = useState("");
  const [tab, setTab] = useState<ChannelTab>("videos");
  const [interval, setInterval] = useState<CheckInterval>(60);
  const [transcripts, setTranscripts] = useState(false);
  const [webhookUrl, setWebhookUrl] = useState("");
  const [name, setName] = useState("");
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const envelope = await call(
        v2Api.POST("/monitors", {
          body: {
            target: target.trim(),
            tab,
            interval_minutes: interval,
            transcripts,
            ...(webhookUrl.trim() ? { webhook_url: webhookUrl.trim() } : {}),
            ...(name.trim() ? { name: name.trim() } : {}),
          },
        }),
      );
      setTarget("");
      setName("");
      setWebhookUrl("");
      onCreated(envelope.data);
    });
  };
  return (
    <section aria-labelledby="create-monitor">
      <h2 id="create-monitor">Watch a channel</h2>
      <form class="grid" onSubmit={submit}>
        <div class="field">
          <label for="monitor-target">Channel (@handle, URL or UC… id)</label>
          <input
            id="monitor-target"
            required
            value={target}
            placeholder="@handle"
            onInput={(e) => setTarget(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="monitor-name">Name (optional)</label>
          <input id="monitor-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="monitor-tab">Tab</label>
          <select id="monitor-tab" value={tab} onChange={(e) => setTab(e.currentTarget.value as ChannelTab)}>
            {tabs.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="monitor-interval">Check</label>
          <select
            id="monitor-interval"
            value={String(interval)}
            onChange={(e) => setInterval(Number(e.currentTarget.value) as CheckInterval)}
          >
            {intervals.map((option) => (
              <option key={option.minutes} value={String(option.minutes)}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="monitor-webhook">Webhook URL (optional)</label>
          <input
            id="monitor-webhook"
            type="url"
            placeholder="https://…"
            value={webhookUrl}
            onInput={(e) => setWebhookUrl(e.currentTarget.value)}
          />
        </div>
        <div class="field checkbox">
          <input
            id="monitor-transcripts"
            type="checkbox"
            checked={transcripts}
            onChange={(e) => setTranscripts(e.currentTarget.checked)}
          />
          <label for="monitor-transcripts">Also fetch each new video's transcript (charged)</label>
        </div>
        <div>
          <button type="submit" disabled={action.busy}>
            Create monitor
          </button>
        </div>
      </form>
      <ErrorState failure={action.failure} />
    </section>
  );
}

function MonitorItem({
  monitor,
  eventsShown,
  onToggleEvents,
  onChanged,
}: {
  monitor: Monitor;
  eventsShown: boolean;
  onToggleEvents: () => void;
  onChanged: () => void;
}) {
  const action = useAction();
  const label = monitor.name ?? monitor.target;
  const path = { monitorId: monitor.id };
  const setStatus = (status: "active" | "paused") =>
    action.run(async () => {
      await call(v2Api.PATCH("/monitors/{monitorId}", { params: { path }, body: { status } }));
      onChanged();
    });
  const remove = () => {
    if (!confirm(`Delete the monitor ${label}, with its events?`)) return;
    action.run(async () => {
      await call(v2Api.DELETE("/monitors/{monitorId}", { params: { path } }));
      onChanged();
    });
  };
  return (
    <li class="card" aria-labelledby={`monitor-${monitor.id}`}>
      <h3 id={`monitor-${monitor.id}`}>
        {label} <span class={`badge ${monitor.status}`}>{monitor.status}</span>
      </h3>
      <dl class="facts">
        <div>
          <dt>Channel</dt>
          <dd>
            {monitor.target} ({monitor.options.tab})
          </dd>
        </div>
        <div>
          <dt>Checks</dt>
          <dd>every {monitor.interval_minutes} min</dd>
        </div>
        <div>
          <dt>Next check</dt>
          <dd>{monitor.status === "paused" ? "Paused" : formatTime(monitor.next_check_at)}</dd>
        </div>
        <div>
          <dt>Last check</dt>
          <dd>{formatTime(monitor.last_checked_at)}</dd>
        </div>
        <div>
          <dt>Webhook</dt>
          <dd class="break">{monitor.webhook_url ?? "None (events are kept)"}</dd>
        </div>
      </dl>
      {monitor.last_error ? (
        <p class="warning">
          Last check failed: {monitor.last_error.message} (<code>{monitor.last_error.code}</code>)
        </p>
      ) : null}
      <div class="actions">
        {monitor.status === "active" ? (
          <button type="button" class="secondary" disabled={action.busy} onClick={() => setStatus("paused")}>
            Pause <span class="visually-hidden">{label}</span>
          </button>
        ) : (
          <button type="button" class="secondary" disabled={action.busy} onClick={() => setStatus("active")}>
            Resume <span class="visually-hidden">{label}</span>
          </button>
        )}
        <button type="button" class="secondary" aria-expanded={eventsShown} onClick={onToggleEvents}>
          {eventsShown ? "Hide events" : "Show events"} <span class="visually-hidden">of {label}</span>
        </button>
        <button type="button" class="danger" disabled={action.busy} onClick={remove}>
          Delete <span class="visually-hidden">{label}</span>
        </button>
      </div>
      <ErrorState failure={action.failure} />
      {eventsShown ? <MonitorEvents monitor={monitor} /> : null}
    </li>
  );
}

function MonitorEvents({ monitor }: { monitor: Monitor }) {
  const events = useLoad(
    async () =>
      (await call(v2Api.GET("/monitors/{monitorId}/events", { params: { path: { monitorId: monitor.id } } }))).data,
  );
  return (
    <section aria-label={`Events of ${monitor.name ?? monitor.target}`}>
      <h4>Events</h4>
      <ErrorState failure={events.failure} />
      {events.loading && !events.data ? <Loading what="events" /> : null}
      {events.data && events.data.events.length === 0 ? <p class="muted">No events yet.</p> : null}
      {events.data && events.data.events.length > 0 ? (
        <div class="table-wrap">
          <table class="stack">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">Delivery</th>
                <th scope="col">Redeliver</th>
              </tr>
            </thead>
            <tbody>
              {events.data.events.map((event) => (
                <EventRow key={event.id} event={event} onRedelivered={events.reload} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

function describeEvent(event: MonitorEvent): string {
  if (event.type === "monitor.videos") {
    const count = event.data.videos.length;
    return `${count} new video${count === 1 ? "" : "s"}`;
  }
  return `Transcript of ${event.data.video_id}: ${event.data.outcome}`;
}

function EventRow({ event, onRedelivered }: { event: MonitorEvent; onRedelivered: () => void }) {
  const action = useAction();
  const [sent, setSent] = useState(false);
  const delivery = event.delivery;
  const redeliver = () =>
    action.run(async () => {
      await call(
        dashboardApi.POST("/webhooks/deliveries/{deliveryId}/redeliver", {
          params: { header: csrf(), path: { deliveryId: event.id } },
        }),
      );
      setSent(true);
      onRedelivered();
    });
  return (
    <tr>
      <th scope="row" class="mono">
        {event.id}
        <div class="muted">{event.type}</div>
      </th>
      <td data-label="When">{formatTime(event.created_at)}</td>
      <td data-label="What">
        {describeEvent(event)}
        {event.credits_spent ? (
          <div class="muted">
            {event.credits_spent} credit{event.credits_spent === 1 ? "" : "s"}
          </div>
        ) : null}
      </td>
      <td data-label="Delivery">
        <span class={`badge ${delivery.status}`}>{delivery.status}</span>
        <div class="muted">
          {delivery.attempts} attempt{delivery.attempts === 1 ? "" : "s"}
          {delivery.last_error ? `, last: ${delivery.last_error}` : ""}
        </div>
      </td>
      <td>
        {delivery.status === "none" ? (
          <span class="muted">No webhook</span>
        ) : (
          <button type="button" class="secondary" disabled={action.busy} onClick={redeliver}>
            Redeliver <span class="visually-hidden">{event.id}</span>
          </button>
        )}
        {sent ? <span role="status"> Sent again.</span> : null}
        <ErrorState failure={action.failure} />
      </td>
    </tr>
  );
}
