import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { type ApiFailure, asFailure } from "./api.ts";

/** The error state: the API's message, its code and the request's id to report. */
export function ErrorState({ failure }: { failure: ApiFailure | undefined }) {
  if (!failure) return null;
  return (
    <div class="error" role="alert">
      <p>
        <strong>{failure.message}</strong>
      </p>
      <p class="muted">
        Code <code>{failure.code}</code>
        {failure.status > 0 ? <> · HTTP {failure.status}</> : null}
        {failure.requestId ? (
          <>
            {" "}
            · request id <code>{failure.requestId}</code>
          </>
        ) : null}
      </p>
    </div>
  );
}

/**
 * Why a session opened with an API key cannot manage keys or the webhook secret, and how to get
 * one that can: the API answers such a session 403 on those operations.
 */
export function CredentialsNotice({ account }: { account: string }) {
  return (
    <div class="notice" role="status">
      <p>
        <strong>Keys and the webhook secret are read-only in this session.</strong>
      </p>
      <p>
        It was opened with an API key. Creating, limiting, rotating and revoking keys, and revealing or rotating the
        webhook secret, need a session opened by a sign-in link, so that a leaked key can neither mint another key nor
        lock the account out. Ask the operator for a link, valid once for 15 minutes:{" "}
        <code>pnpm verbatim dashboard link {account}</code>
      </p>
    </div>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  failure: ApiFailure | undefined;
  loading: boolean;
  reload(): void;
}

/** Loads `load()` on mount and whenever `deps` change; `reload()` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => {
        if (!current) return;
        setData(value);
        setFailure(undefined);
        setLoading(false);
      },
      (cause: unknown) => {
        if (!current) return;
        setFailure(asFailure(cause));
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [round, ...deps]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { data, failure, loading, reload };
}

/** Runs one user action at a time, keeping its failure for the error state. */
export function useAction(): {
  busy: boolean;
  failure: ApiFailure | undefined;
  run(action: () => Promise<void>): Promise<void>;
  clear(): void;
} {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  const run = useCallback(async (action: () => Promise<void>) => {
    setBusy(true);
    setFailure(undefined);
    try {
      await action();
    } catch (cause) {
      setFailure(asFailure(cause));
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, failure, run, clear: () => setFailure(undefined) };
}

export function Page({ title, children }: { title: string; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Verbatim dashboard`;
  }, [title]);
  return (
    <>
      <h1>{title}</h1>
      {children}
    </>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" aria-live="polite">
      Loading {what}…
    </p>
  );
}

/** A secret shown once, with a button that copies it. */
export function Secret({ label, value, note }: { label: string; value: string; note?: string }) {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const id = `secret-${label.replace(/\W+/g, "-").toLowerCase()}`;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("Copied.");
    } catch {
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied("Copying is blocked here: the text is selected, press Ctrl+C.");
    }
  };
  return (
    <div class="secret">
      <label for={id}>{label}</label>
      <div class="row">
        <input id={id} class="mono" readOnly value={value} onFocus={(event) => event.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
      </div>
      <p class="muted" aria-live="polite">
        {copied ?? note}
      </p>
    </div>
  );
}

/** A date-time as UTC, to the minute. */
export function formatTime(value: string | null | undefined): string {
  if (!value) return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

export function formatNumber(value: number | null | undefined, none = "Unlimited"): string {
  return value === null || value === undefined ? none : value.toLocaleString("en-US");
}

/** Seconds as m:ss or h:mm:ss. */
export function formatOffset(seconds: number): string {
  const total = Math.floor(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}
