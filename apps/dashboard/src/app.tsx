import { useEffect, useRef, useState } from "preact/hooks";
import { call, csrf, dashboardApi, setCsrfToken, whenCredentialsRefused, whenSignedOut } from "./api.ts";
import { Account } from "./pages/account.tsx";
import { Keys } from "./pages/keys.tsx";
import { Library } from "./pages/library.tsx";
import { Live } from "./pages/live.tsx";
import { Monitors } from "./pages/monitors.tsx";
import { Sessions } from "./pages/sessions.tsx";
import { SignIn } from "./pages/sign-in.tsx";
import { Usage } from "./pages/usage.tsx";
import { Webhooks } from "./pages/webhooks.tsx";
import { base, navigate, onLinkClick, usePath } from "./router.ts";
import type { Session } from "./session.ts";
import { ErrorState, useAction } from "./ui.tsx";

/** What a page may need of the signed-in session. */
interface PageContext {
  session: Session;
  onSignedOut: () => void;
}

const pages = [
  { path: "/", label: "Overview", render: () => <Account /> },
  { path: "/keys", label: "Keys", render: ({ session }: PageContext) => <Keys session={session} /> },
  {
    path: "/sessions",
    label: "Sessions",
    render: ({ onSignedOut }: PageContext) => <Sessions onSignedOut={onSignedOut} />,
  },
  { path: "/usage", label: "Usage", render: () => <Usage /> },
  { path: "/monitors", label: "Monitors", render: () => <Monitors /> },
  { path: "/live", label: "Live", render: () => <Live /> },
  { path: "/webhooks", label: "Webhooks", render: ({ session }: PageContext) => <Webhooks session={session} /> },
  { path: "/library", label: "Library", render: () => <Library /> },
] as const;

type SessionState =
  | { state: "checking" }
  | { state: "signed-out"; reason?: string }
  | { state: "signed-in"; session: Session };

export function App() {
  const path = usePath();
  const [session, setSession] = useState<SessionState>({ state: "checking" });

  const signedIn = (value: Session) => {
    setCsrfToken(value.csrf_token);
    setSession({ state: "signed-in", session: value });
  };
  const signedOut = (reason?: string) => {
    setCsrfToken(undefined);
    setSession(reason ? { state: "signed-out", reason } : { state: "signed-out" });
  };

  useEffect(() => {
    whenSignedOut(() => signedOut("Your session has ended. Sign in again."));
    // The API knows best: a refused credential change turns the pages read-only, and the session stays.
    whenCredentialsRefused(() =>
      setSession((current) =>
        current.state === "signed-in"
          ? { state: "signed-in", session: { ...current.session, can_manage_credentials: false } }
          : current,
      ),
    );
    // A link's token is in the fragment of /sign-in: the sign-in page uses it, whatever session there is.
    if (path === "/sign-in" && location.hash.includes("token=")) {
      setSession({ state: "signed-out" });
      return;
    }
    call(dashboardApi.GET("/session"), { signIn: true }).then(
      (envelope) => signedIn(envelope.data),
      () => signedOut(),
    );
  }, []);

  // After an in-app navigation, focus moves to the new page's content, as a page load would reset it.
  const firstPath = useRef(path);
  useEffect(() => {
    if (path === firstPath.current) return;
    firstPath.current = "";
    document.getElementById("main")?.focus();
  }, [path]);

  useEffect(() => {
    if (session.state === "signed-out" && path !== "/sign-in") navigate("/sign-in", { replace: true });
    if (session.state === "signed-in" && path === "/sign-in") navigate("/", { replace: true });
  }, [session.state, path]);

  if (session.state === "checking") {
    return (
      <main id="main" class="centered">
        <p class="muted">Loading…</p>
      </main>
    );
  }
  if (session.state === "signed-out") {
    return (
      <main id="main" class="centered">
        <SignIn onSignedIn={signedIn} {...(session.reason ? { notice: session.reason } : {})} />
      </main>
    );
  }
  const page = pages.find((candidate) => candidate.path === path);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={`${base}/`} onClick={onLinkClick}>
          Verbatim
        </a>
        <nav aria-label="Dashboard">
          <ul>
            {pages.map((candidate) => (
              <li key={candidate.path}>
                <a
                  href={`${base}${candidate.path === "/" ? "/" : candidate.path}`}
                  aria-current={candidate.path === path ? "page" : undefined}
                  onClick={onLinkClick}
                >
                  {candidate.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <SignOut account={session.session.account_id} onSignedOut={() => signedOut()} />
      </header>
      <main id="main" tabIndex={-1}>
        {page ? page.render({ session: session.session, onSignedOut: () => signedOut() }) : <NotFound />}
      </main>
    </>
  );
}

function SignOut({ account, onSignedOut }: { account: string; onSignedOut: () => void }) {
  const action = useAction();
  return (
    <div class="account">
      <span class="muted mono" title="Signed-in account">
        {account}
      </span>
      <button
        type="button"
        class="secondary"
        disabled={action.busy}
        onClick={() =>
          action.run(async () => {
            await call(dashboardApi.DELETE("/session", { params: { header: csrf() } }));
            onSignedOut();
          })
        }
      >
        Sign out
      </button>
      <ErrorState failure={action.failure} />
    </div>
  );
}

function NotFound() {
  return (
    <>
      <h1>Not found</h1>
      <p>
        This page does not exist.{" "}
        <a href={`${base}/`} onClick={onLinkClick}>
          Go to the overview
        </a>
        .
      </p>
    </>
  );
}
