import { useEffect, useState } from "preact/hooks";
import { call, dashboardApi } from "../api.ts";
import type { Session } from "../session.ts";
import { ErrorState, useAction } from "../ui.tsx";

/** Reads a sign-in link's token from the fragment (`/dashboard/sign-in#token=...`) and drops it from the address. */
function takeLinkToken(): string | undefined {
  const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? undefined;
  if (location.hash) history.replaceState(null, "", `${location.pathname}${location.search}`);
  return token || undefined;
}

export function SignIn({ onSignedIn, notice }: { onSignedIn: (session: Session) => void; notice?: string }) {
  const [apiKey, setApiKey] = useState("");
  const [usingLink, setUsingLink] = useState(false);
  const action = useAction();

  useEffect(() => {
    document.title = "Sign in · Verbatim dashboard";
    const useLink = () => {
      const token = takeLinkToken();
      if (!token) return;
      setUsingLink(true);
      action
        .run(async () => {
          const envelope = await call(dashboardApi.POST("/session", { body: { link_token: token } }), {
            signIn: true,
          });
          onSignedIn(envelope.data);
        })
        .finally(() => setUsingLink(false));
    };
    useLink();
    // A link opened while this page is already showing changes only the fragment.
    addEventListener("hashchange", useLink);
    return () => removeEventListener("hashchange", useLink);
  }, []);

  const submit = (event: Event) => {
    event.preventDefault();
    action.run(async () => {
      const envelope = await call(dashboardApi.POST("/session", { body: { api_key: apiKey.trim() } }), {
        signIn: true,
      });
      setApiKey("");
      onSignedIn(envelope.data);
    });
  };

  return (
    <section class="card sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to Verbatim</h1>
      {notice && !action.failure ? <p class="notice">{notice}</p> : null}
      {usingLink ? <p aria-live="polite">Signing in with your link…</p> : null}
      <ErrorState failure={action.failure} />
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          name="api_key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          placeholder="vb_live_…"
          value={apiKey}
          onInput={(event) => setApiKey(event.currentTarget.value)}
        />
        <button type="submit" disabled={action.busy}>
          Sign in
        </button>
      </form>
      <p class="muted">
        No key at hand? An operator can print a sign-in link, valid once for 15 minutes:{" "}
        <code>pnpm verbatim dashboard link &lt;account&gt;</code>
      </p>
    </section>
  );
}
