import { setTimeout as sleep } from "node:timers/promises";
import { Agent, type Dispatcher, ProxyAgent, fetch as undiciFetch } from "undici";
import { UpstreamError } from "./upstream-errors.ts";

/** How outbound YouTube traffic is sent. */
export interface UpstreamFetchConfig {
  /** Where every `https://www.youtube.com` (and `youtubei.googleapis.com`) request goes instead; no trailing slash. */
  origin: string;
  /** HTTP(S) proxies used in turn, one per attempt; empty for direct connections. */
  proxyUrls?: readonly string[];
  /** Milliseconds one attempt may take. */
  attemptTimeoutMs: number;
  /** Milliseconds all attempts of one call may take together, backoff included. */
  budgetMs: number;
  /** Attempts of one call at most, the first included. */
  maxAttempts: number;
  /** Milliseconds of the first backoff; it doubles per retry, with full jitter. */
  backoffBaseMs?: number;
  /** Random number in [0, 1); tests may fix it. */
  random?: () => number;
  /** The certificate authorities TLS connections trust (`caCertificatesFrom`); default Node's bundled roots. */
  ca?: readonly string[];
}

/** The hosts whose traffic is redirected to the configured origin. */
const youtubeHosts = new Set(["www.youtube.com", "youtube.com", "m.youtube.com", "youtubei.googleapis.com"]);

/** Statuses worth another attempt: YouTube's transient server errors. 429 is a block, retrying makes it worse. */
const transientStatuses = new Set([500, 502, 503, 504]);

/**
 * A `fetch` for youtubei.js and the caption download: rewrites YouTube hosts to the configured
 * origin, bounds each attempt with a timeout, retries transient failures with exponential
 * backoff and full jitter inside the call's budget, rotates proxies, and turns failures into
 * `UpstreamError`s so the caller can map them.
 */
export function createUpstreamFetch(config: UpstreamFetchConfig): typeof fetch {
  const origin = new URL(config.origin);
  const random = config.random ?? Math.random;
  const backoffBaseMs = config.backoffBaseMs ?? 200;
  const tls = config.ca ? { ca: [...config.ca] } : undefined;
  const proxies: Dispatcher[] = (config.proxyUrls ?? []).map(
    (url) => new ProxyAgent(tls ? { uri: url, requestTls: tls, proxyTls: tls } : url),
  );
  // Without a configured CA, direct requests take undici's global dispatcher, as before.
  const direct = tls ? new Agent({ connect: tls }) : undefined;
  let nextProxy = 0;

  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const target = redirectToOrigin(new URL(request.url), origin);
    const body = request.body ? await request.arrayBuffer() : undefined;
    const deadline = Date.now() + config.budgetMs;
    let lastError: UpstreamError | undefined;
    for (let attempt = 1; attempt <= config.maxAttempts; attempt++) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const dispatcher = proxies.length > 0 ? proxies[nextProxy++ % proxies.length] : direct;
      try {
        const response = await undiciFetch(target, {
          method: request.method,
          headers: Object.fromEntries(request.headers),
          body,
          redirect: "follow",
          signal: AbortSignal.timeout(Math.min(config.attemptTimeoutMs, remaining)),
          ...(dispatcher ? { dispatcher } : {}),
        });
        if (response.ok) return await checkedBody(response as unknown as Response, target);
        const failure = statusFailure(response.status, target);
        await response.body?.cancel();
        if (!transientStatuses.has(response.status)) throw failure;
        lastError = failure;
      } catch (error) {
        if (error instanceof UpstreamError) throw error;
        lastError = transportFailure(error, target);
      }
      if (attempt < config.maxAttempts) {
        const backoff = random() * backoffBaseMs * 2 ** (attempt - 1);
        if (Date.now() + backoff >= deadline) break;
        await sleep(backoff);
      }
    }
    throw lastError ?? new UpstreamError("timeout", `No answer from ${target.pathname} within ${config.budgetMs} ms.`);
  }) as typeof fetch;
}

function redirectToOrigin(url: URL, origin: URL): URL {
  if (!youtubeHosts.has(url.hostname)) return url;
  return new URL(url.pathname + url.search, origin);
}

/**
 * Reads the body once and refuses HTML where JSON or XML was asked for: YouTube answers a
 * blocked client with a consent wall or a reCAPTCHA page, with status 200.
 */
async function checkedBody(response: Response, target: URL): Promise<Response> {
  const text = await response.text();
  if (/^\s*<!doctype html|^\s*<html/i.test(text)) {
    if (isBlockPage(text)) {
      throw new UpstreamError("blocked", `YouTube answered ${target.pathname} with a consent or bot-check page.`);
    }
    throw new UpstreamError("unparseable", `YouTube answered ${target.pathname} with an unexpected HTML page.`);
  }
  return new Response(text, { status: response.status, headers: response.headers });
}

/** Consent interstitials post to consent.youtube.com; the "unusual traffic" page carries a reCAPTCHA. */
function isBlockPage(html: string): boolean {
  return /consent\.youtube\.com|g-recaptcha|unusual traffic/i.test(html);
}

/** The failure an HTTP status from YouTube means: 403 and 429 are blocks, the rest failures. */
export function statusFailure(status: number, target: URL): UpstreamError {
  if (status === 429 || status === 403) {
    return new UpstreamError("blocked", `YouTube refused ${target.pathname} with HTTP ${status}.`, status);
  }
  if (status >= 500) {
    return new UpstreamError("failed", `YouTube failed ${target.pathname} with HTTP ${status}.`, status);
  }
  return new UpstreamError("failed", `YouTube answered ${target.pathname} with HTTP ${status}.`, status);
}

/** undici's own waits (headers, a pause in the body, connecting), as the cause of fetch's "fetch failed" or "terminated". */
const undiciTimeoutCodes = new Set(["UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT"]);

/** The failure an exchange with YouTube that got no answer means: a timeout, or a broken connection. */
export function transportFailure(error: unknown, target: URL): UpstreamError {
  const name = (error as { name?: string }).name;
  const causeCode = (error as { cause?: { code?: unknown } }).cause?.code;
  if (name === "TimeoutError" || name === "AbortError" || undiciTimeoutCodes.has(String(causeCode))) {
    return new UpstreamError("timeout", `YouTube did not answer ${target.pathname} in time.`, undefined, {
      cause: error,
    });
  }
  return new UpstreamError("connection", `The connection to YouTube failed for ${target.pathname}.`, undefined, {
    cause: error,
  });
}
