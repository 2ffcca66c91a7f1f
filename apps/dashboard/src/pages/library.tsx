import type { Schema } from "@verbatim/contract";
import { useState } from "preact/hooks";
import { call, v2Api } from "../api.ts";
import { ErrorState, formatOffset, formatTime, Loading, Page, useAction, useLoad } from "../ui.tsx";

type Platform = Schema<"Platform">;
type LibraryHit = Schema<"LibraryHit">;
type LibraryEntry = Schema<"LibraryEntry">;

const platforms: { value: Platform | ""; label: string }[] = [
  { value: "", label: "Every platform" },
  { value: "youtube", label: "YouTube" },
  { value: "podcast", label: "Podcasts" },
  { value: "file", label: "Media files" },
];

/**
 * The snippet's `highlight` is the transcript's text HTML-escaped with `<mark>` around matched
 * words: split on the marks and decode the rest as text, so nothing from a transcript becomes markup.
 */
function Highlight({ html }: { html: string }) {
  const decoder = document.createElement("textarea");
  const decode = (text: string) => {
    decoder.innerHTML = text;
    return decoder.value;
  };
  const parts = html.split(/(<mark>.*?<\/mark>)/s);
  return (
    <span>
      {parts.map((part, index) => {
        const marked = /^<mark>(.*)<\/mark>$/s.exec(part);
        return marked ? <mark key={index}>{decode(marked[1] ?? "")}</mark> : decode(part);
      })}
    </span>
  );
}

function describe(entry: LibraryEntry): string {
  return [
    entry.channel,
    entry.platform,
    entry.language,
    entry.source === "audio" ? "speech recognition" : "captions",
    entry.duration === null ? null : formatOffset(entry.duration),
  ]
    .filter(Boolean)
    .join(" · ");
}

export function Library() {
  const [query, setQuery] = useState("");
  const [platform, setPlatform] = useState<Platform | "">("");
  const [results, setResults] = useState<{ query: string; hits: LibraryHit[]; next: string | null } | undefined>(
    undefined,
  );
  const action = useAction();

  const search = (cursor?: string) =>
    action.run(async () => {
      const asked = cursor ? (results?.query ?? query) : query.trim();
      const envelope = await call(
        v2Api.POST("/library/search", {
          body: {
            query: asked,
            limit: 10,
            ...(cursor ? { cursor } : {}),
            ...(platform ? { platform } : {}),
          },
        }),
      );
      const hits = cursor ? [...(results?.hits ?? []), ...envelope.data.hits] : envelope.data.hits;
      setResults({ query: asked, hits, next: envelope.data.next_cursor });
    });

  return (
    <Page title="Library">
      <form
        class="inline"
        aria-label="Search the library"
        onSubmit={(event) => {
          event.preventDefault();
          search();
        }}
      >
        <div class="field grow">
          <label for="library-query">Search your transcripts</label>
          <input
            id="library-query"
            type="search"
            required
            maxLength={500}
            placeholder={'words, "a phrase", this or that, -without'}
            value={query}
            onInput={(event) => setQuery(event.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="library-platform">Platform</label>
          <select
            id="library-platform"
            value={platform}
            onChange={(event) => setPlatform(event.currentTarget.value as Platform | "")}
          >
            {platforms.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={action.busy}>
          Search
        </button>
      </form>
      <ErrorState failure={action.failure} />
      {results ? (
        <section aria-labelledby="library-hits">
          <h2 id="library-hits" aria-live="polite">
            {results.hits.length === 0
              ? `Nothing matches: ${results.query}`
              : `${results.hits.length}${results.next ? "+" : ""} ${
                  results.hits.length === 1 && !results.next ? "transcript matches" : "transcripts match"
                }: ${results.query}`}
          </h2>
          <ul class="hits">
            {results.hits.map((hit) => (
              <li key={`${hit.platform}:${hit.video_id}`} class="card">
                <h3>{hit.url ? <a href={hit.url}>{hit.title ?? hit.video_id}</a> : (hit.title ?? hit.video_id)}</h3>
                <p class="muted">
                  {describe(hit)} · fetched {formatTime(hit.fetched_at)}
                </p>
                <ul class="snippets">
                  {hit.snippets.map((snippet) => (
                    <li key={snippet.start}>
                      {snippet.url ? (
                        <a href={snippet.url} target="_blank" rel="noopener noreferrer">
                          {formatOffset(snippet.start)}
                          <span class="visually-hidden"> in {hit.title ?? hit.video_id} (opens the video there)</span>
                        </a>
                      ) : (
                        <span class="mono">{formatOffset(snippet.start)}</span>
                      )}{" "}
                      <Highlight html={snippet.highlight} />
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
          {results.next ? (
            <button
              type="button"
              class="secondary"
              disabled={action.busy}
              onClick={() => results.next && search(results.next)}
            >
              More results
            </button>
          ) : null}
        </section>
      ) : null}
      <Recent />
    </Page>
  );
}

function Recent() {
  const [pages, setPages] = useState<string[]>([]);
  const cursor = pages.at(-1);
  const recent = useLoad(
    async () =>
      (await call(v2Api.GET("/library", { params: { query: cursor ? { limit: 20, cursor } : { limit: 20 } } }))).data,
    [cursor],
  );
  return (
    <section aria-labelledby="library-recent">
      <h2 id="library-recent">Recently fetched</h2>
      <ErrorState failure={recent.failure} />
      {recent.loading && !recent.data ? <Loading what="the library" /> : null}
      {recent.data && recent.data.entries.length === 0 ? (
        <p class="muted">No transcripts yet: every transcript this account fetches appears here.</p>
      ) : null}
      {recent.data && recent.data.entries.length > 0 ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">About</th>
                <th scope="col">Fetched</th>
              </tr>
            </thead>
            <tbody>
              {recent.data.entries.map((entry) => (
                <tr key={`${entry.platform}:${entry.video_id}`}>
                  <th scope="row">
                    {entry.url ? (
                      <a href={entry.url}>{entry.title ?? entry.video_id}</a>
                    ) : (
                      (entry.title ?? entry.video_id)
                    )}
                  </th>
                  <td>{describe(entry)}</td>
                  <td>{formatTime(entry.fetched_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <div class="actions">
        {pages.length > 0 ? (
          <button type="button" class="secondary" onClick={() => setPages(pages.slice(0, -1))}>
            Newer
          </button>
        ) : null}
        {recent.data?.next_cursor ? (
          <button
            type="button"
            class="secondary"
            onClick={() => recent.data?.next_cursor && setPages([...pages, recent.data.next_cursor])}
          >
            Older
          </button>
        ) : null}
      </div>
    </section>
  );
}
