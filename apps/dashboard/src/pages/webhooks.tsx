import type { Dashboard } from "@verbatim/contract";
import { useState } from "preact/hooks";
import { call, csrf, dashboardApi } from "../api.ts";
import type { Session } from "../session.ts";
import { CredentialsNotice, ErrorState, formatTime, Loading, Page, Secret, useAction, useLoad } from "../ui.tsx";

type Delivery = Dashboard.components["schemas"]["WebhookDelivery"];

const pageSize = 20;

export function Webhooks({ session }: { session: Session }) {
  return (
    <Page title="Webhooks">
      <SigningSecret session={session} />
      <DeliveryLog />
    </Page>
  );
}

function SigningSecret({ session }: { session: Session }) {
  const [secret, setSecret] = useState<{ value: string; rotated: boolean } | undefined>(undefined);
  const action = useAction();
  const reveal = () =>
    action.run(async () => {
      const envelope = await call(dashboardApi.GET("/webhooks/secret"));
      setSecret({ value: envelope.data.secret, rotated: false });
    });
  const rotate = () => {
    if (!confirm("Rotate the webhook secret? Deliveries from now on are signed with the new one.")) return;
    action.run(async () => {
      const envelope = await call(dashboardApi.POST("/webhooks/secret/rotate", { params: { header: csrf() } }));
      setSecret({ value: envelope.data.secret, rotated: true });
    });
  };
  return (
    <section aria-labelledby="signing-secret">
      <h2 id="signing-secret">Signing secret</h2>
      <p>
        Job callbacks are signed with this <code>whsec_</code> secret (Standard Webhooks); each monitor signs with its
        own.
      </p>
      {session.can_manage_credentials ? (
        <>
          {secret ? (
            <Secret
              label="Webhook signing secret"
              value={secret.value}
              note={secret.rotated ? "Rotated: this is the new secret." : ""}
            />
          ) : null}
          <div class="actions">
            {secret ? (
              <button type="button" class="secondary" onClick={() => setSecret(undefined)}>
                Hide secret
              </button>
            ) : (
              <button type="button" disabled={action.busy} onClick={reveal}>
                Reveal secret
              </button>
            )}
            <button type="button" class="danger" disabled={action.busy} onClick={rotate}>
              Rotate secret
            </button>
          </div>
          <ErrorState failure={action.failure} />
        </>
      ) : (
        <CredentialsNotice account={session.account_id} />
      )}
    </section>
  );
}

function DeliveryLog() {
  const [before, setBefore] = useState<string[]>([]);
  const cursor = before.at(-1);
  const log = useLoad(
    async () =>
      (
        await call(
          dashboardApi.GET("/webhooks/deliveries", {
            params: { query: cursor ? { limit: pageSize, before: cursor } : { limit: pageSize } },
          }),
        )
      ).data,
    [cursor],
  );
  return (
    <section aria-labelledby="delivery-log">
      <h2 id="delivery-log">Delivery log</h2>
      <ErrorState failure={log.failure} />
      {log.loading && !log.data ? <Loading what="deliveries" /> : null}
      {log.data && log.data.deliveries.length === 0 ? <p class="muted">No webhook deliveries yet.</p> : null}
      {log.data && log.data.deliveries.length > 0 ? (
        <ul class="cards">
          {log.data.deliveries.map((delivery) => (
            <DeliveryItem key={delivery.id} delivery={delivery} onRedelivered={log.reload} />
          ))}
        </ul>
      ) : null}
      <div class="actions">
        {before.length > 0 ? (
          <button type="button" class="secondary" onClick={() => setBefore(before.slice(0, -1))}>
            Newer deliveries
          </button>
        ) : null}
        {log.data?.next_before ? (
          <button
            type="button"
            class="secondary"
            onClick={() => log.data?.next_before && setBefore([...before, log.data.next_before])}
          >
            Older deliveries
          </button>
        ) : null}
        <button type="button" class="secondary" onClick={log.reload}>
          Refresh
        </button>
      </div>
    </section>
  );
}

function DeliveryItem({ delivery, onRedelivered }: { delivery: Delivery; onRedelivered: () => void }) {
  const action = useAction();
  const redeliver = () =>
    action.run(async () => {
      await call(
        dashboardApi.POST("/webhooks/deliveries/{deliveryId}/redeliver", {
          params: { header: csrf(), path: { deliveryId: delivery.id } },
        }),
      );
      onRedelivered();
    });
  return (
    <li class="card" aria-labelledby={`delivery-${delivery.id}`}>
      <h3 id={`delivery-${delivery.id}`}>
        <span class="mono">{delivery.event_type}</span>{" "}
        <span class={`badge ${delivery.status}`}>{delivery.status}</span>
      </h3>
      <dl class="facts">
        <div>
          <dt>Id</dt>
          <dd class="mono">{delivery.id}</dd>
        </div>
        <div>
          <dt>To</dt>
          <dd class="break">{delivery.url}</dd>
        </div>
        <div>
          <dt>Queued</dt>
          <dd>{formatTime(delivery.created_at)}</dd>
        </div>
        <div>
          <dt>{delivery.delivered_at ? "Delivered" : "Next attempt"}</dt>
          <dd>{formatTime(delivery.delivered_at ?? delivery.next_attempt_at)}</dd>
        </div>
      </dl>
      {delivery.attempts.length === 0 ? (
        <p class="muted">No attempt yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">Attempts of {delivery.id}</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">At</th>
                <th scope="col">Answer</th>
                <th scope="col" class="num">
                  Took
                </th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((attempt) => (
                <tr key={attempt.attempt}>
                  <th scope="row">#{attempt.attempt}</th>
                  <td>{formatTime(attempt.attempted_at)}</td>
                  <td>
                    {attempt.response_status !== null ? `HTTP ${attempt.response_status}` : ""}
                    {attempt.error ? ` ${attempt.error}` : ""}
                  </td>
                  <td class="num">{attempt.duration_ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <button type="button" class="secondary" disabled={action.busy} onClick={redeliver}>
        Redeliver <span class="visually-hidden">{delivery.id}</span>
      </button>
      <ErrorState failure={action.failure} />
    </li>
  );
}
