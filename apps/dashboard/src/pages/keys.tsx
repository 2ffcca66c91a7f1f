import type { Dashboard } from "@verbatim/contract";
import { useState } from "preact/hooks";
import { call, csrf, dashboardApi } from "../api.ts";
import type { Session } from "../session.ts";
import { CredentialsNotice, ErrorState, formatTime, Loading, Page, Secret, useAction, useLoad } from "../ui.tsx";

type ApiKey = Dashboard.components["schemas"]["ApiKey"];

const pageSize = 20;

/** Grace periods offered when rotating: how long the old key keeps working. */
const graces = [
  { seconds: 0, label: "None: revoke it now" },
  { seconds: 600, label: "10 minutes" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 86_400, label: "24 hours" },
  { seconds: 604_800, label: "7 days" },
];

function parseLimit(text: string): number | null {
  const trimmed = text.trim();
  return trimmed === "" ? null : Number(trimmed);
}

export function Keys({ session }: { session: Session }) {
  const [before, setBefore] = useState<string[]>([]);
  const cursor = before.at(-1);
  const keys = useLoad(
    async () =>
      (
        await call(
          dashboardApi.GET("/keys", {
            params: { query: cursor ? { limit: pageSize, before: cursor } : { limit: pageSize } },
          }),
        )
      ).data,
    [cursor],
  );
  const manage = session.can_manage_credentials;
  const [issued, setIssued] = useState<{ key: string; prefix: string; note: string } | undefined>(undefined);
  const [limit, setLimit] = useState("");
  const action = useAction();

  const create = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const requests = parseLimit(limit);
      const envelope = await call(
        dashboardApi.POST("/keys", {
          params: { header: csrf() },
          body: requests === null ? {} : { requests_per_minute: requests },
        }),
      );
      setIssued({ key: envelope.data.key, prefix: envelope.data.api_key.prefix, note: "New key created." });
      setLimit("");
      // The new key heads the newest page.
      if (before.length > 0) setBefore([]);
      else keys.reload();
    });
  };

  return (
    <Page title="API keys">
      {manage ? (
        <section aria-labelledby="create-key">
          <h2 id="create-key">Create a key</h2>
          <form class="inline" onSubmit={create}>
            <div class="field">
              <label for="new-key-limit">Requests per minute (optional)</label>
              <input
                id="new-key-limit"
                type="number"
                min={1}
                inputMode="numeric"
                placeholder="The account's limit"
                value={limit}
                onInput={(event) => setLimit(event.currentTarget.value)}
              />
            </div>
            <button type="submit" disabled={action.busy}>
              Create key
            </button>
          </form>
          <ErrorState failure={action.failure} />
          {issued ? (
            <div class="card highlight" role="status">
              <p>
                <strong>{issued.note}</strong> Copy it now: it is never shown again.
              </p>
              <Secret label={`Key ${issued.prefix}`} value={issued.key} />
              <button type="button" class="secondary" onClick={() => setIssued(undefined)}>
                I have stored it
              </button>
            </div>
          ) : null}
        </section>
      ) : (
        <CredentialsNotice account={session.account_id} />
      )}
      <section aria-labelledby="key-list">
        <h2 id="key-list">Keys</h2>
        <ErrorState failure={keys.failure} />
        {keys.loading && !keys.data ? <Loading what="keys" /> : null}
        {keys.data ? (
          <div class="table-wrap">
            <table class="stack">
              <thead>
                <tr>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Limit per minute</th>
                  <th scope="col">Status</th>
                  {manage ? <th scope="col">Actions</th> : null}
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.map((key) => (
                  <KeyRow
                    key={key.id}
                    apiKey={key}
                    manage={manage}
                    onChanged={keys.reload}
                    onIssued={(secret, prefix) =>
                      setIssued({ key: secret, prefix, note: `Key ${key.prefix} rotated; this is its successor.` })
                    }
                  />
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
        <div class="actions">
          {before.length > 0 ? (
            <button type="button" class="secondary" onClick={() => setBefore(before.slice(0, -1))}>
              Newer keys
            </button>
          ) : null}
          {keys.data?.next_before ? (
            <button
              type="button"
              class="secondary"
              onClick={() => keys.data?.next_before && setBefore([...before, keys.data.next_before])}
            >
              Older keys
            </button>
          ) : null}
        </div>
      </section>
    </Page>
  );
}

function KeyRow({
  apiKey,
  manage,
  onChanged,
  onIssued,
}: {
  apiKey: ApiKey;
  /** Whether the session may limit, rotate and revoke keys: otherwise the row only reads. */
  manage: boolean;
  onChanged: () => void;
  onIssued: (secret: string, prefix: string) => void;
}) {
  const [limit, setLimit] = useState(apiKey.requests_per_minute === null ? "" : String(apiKey.requests_per_minute));
  const [grace, setGrace] = useState("3600");
  const action = useAction();
  const path = { keyId: apiKey.id };
  const revoked = apiKey.revoked_at !== null;
  const revokesLater = revoked && new Date(apiKey.revoked_at ?? 0).getTime() > Date.now();
  const ids = `key-${apiKey.id}`;

  const saveLimit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      await call(
        dashboardApi.PATCH("/keys/{keyId}", {
          params: { header: csrf(), path },
          body: { requests_per_minute: parseLimit(limit) },
        }),
      );
      onChanged();
    });
  };
  const rotate = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const envelope = await call(
        dashboardApi.POST("/keys/{keyId}/rotate", {
          params: { header: csrf(), path },
          body: { grace_seconds: Number(grace) },
        }),
      );
      onIssued(envelope.data.key, envelope.data.api_key.prefix);
      onChanged();
    });
  };
  const revoke = () => {
    if (!confirm(`Revoke key ${apiKey.prefix}? Requests with it are refused from now on.`)) return;
    action.run(async () => {
      await call(dashboardApi.DELETE("/keys/{keyId}", { params: { header: csrf(), path } }));
      onChanged();
    });
  };

  return (
    <tr>
      <th scope="row" class="mono">
        {apiKey.prefix}
      </th>
      <td data-label="Created">{formatTime(apiKey.created_at)}</td>
      <td data-label="Last used">{apiKey.last_used_at ? formatTime(apiKey.last_used_at) : "Never"}</td>
      <td data-label="Limit per minute">
        {revoked || !manage ? (
          (apiKey.requests_per_minute ?? "Account's")
        ) : (
          <form class="inline compact" onSubmit={saveLimit}>
            <label class="visually-hidden" for={`${ids}-limit`}>
              Requests per minute for key {apiKey.prefix}
            </label>
            <input
              id={`${ids}-limit`}
              class="narrow"
              type="number"
              min={1}
              inputMode="numeric"
              placeholder="Account's"
              value={limit}
              onInput={(event) => setLimit(event.currentTarget.value)}
            />
            <button type="submit" class="secondary" disabled={action.busy}>
              Set limit
            </button>
          </form>
        )}
      </td>
      <td data-label="Status">
        {revoked
          ? revokesLater
            ? `Works until ${formatTime(apiKey.revoked_at)}`
            : `Revoked ${formatTime(apiKey.revoked_at)}`
          : "Active"}
      </td>
      {manage ? (
        <td>
          {revoked && !revokesLater ? null : (
            <div class="actions">
              {revokesLater ? null : (
                <form class="inline compact" onSubmit={rotate}>
                  <label class="visually-hidden" for={`${ids}-grace`}>
                    Grace period for key {apiKey.prefix}
                  </label>
                  <select id={`${ids}-grace`} value={grace} onChange={(event) => setGrace(event.currentTarget.value)}>
                    {graces.map((option) => (
                      <option key={option.seconds} value={String(option.seconds)}>
                        {option.label}
                      </option>
                    ))}
                  </select>
                  <button
                    type="submit"
                    class="secondary"
                    disabled={action.busy}
                    aria-label={`Rotate key ${apiKey.prefix}`}
                  >
                    Rotate
                  </button>
                </form>
              )}
              <button
                type="button"
                class="danger"
                disabled={action.busy}
                onClick={revoke}
                aria-label={`Revoke key ${apiKey.prefix}`}
              >
                Revoke
              </button>
            </div>
          )}
          <ErrorState failure={action.failure} />
        </td>
      ) : null}
    </tr>
  );
}
