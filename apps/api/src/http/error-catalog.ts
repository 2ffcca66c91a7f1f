import { type ErrorCode, errorTable } from "@verbatim/contract";
import { type Request, type Response, Router } from "express";
import { ApiError } from "../errors.ts";

const families: Record<string, string> = {
  "1": "request",
  "2": "account",
  "3": "input",
  "4": "content",
  "5": "transient: retry with backoff",
  "9": "ours",
};

const entries = Object.entries(errorTable).map(([code, entry]) => ({
  code: code as ErrorCode,
  ...entry,
  family: families[String(entry.number)[0] ?? ""] ?? "other",
}));

type Entry = (typeof entries)[number];

/** Serves the error catalog generated from the spec: `/docs/errors` and `/docs/errors/{code}` (or `{number}`). */
export function errorCatalog(): Router {
  const router = Router();
  router.get("/", (_req, res) => {
    const html = () => res.type("html").send(page("Verbatim errors", indexBody()));
    res.format({ "text/html": html, "application/json": () => res.json({ errors: entries }), default: html });
  });
  router.get("/:code", (req: Request<{ code: string }>, res: Response) => {
    const entry = entries.find(
      (candidate) => candidate.code === req.params.code || String(candidate.number) === req.params.code,
    );
    if (!entry) throw new ApiError("not_found", `No error is named ${req.params.code}.`);
    const html = () => res.type("html").send(page(`${entry.code} (${entry.number})`, entryBody(entry)));
    res.format({ "text/html": html, "application/json": () => res.json(entry), default: html });
  });
  return router;
}

function indexBody(): string {
  const rows = entries
    .map(
      (entry) =>
        `<tr><td><a href="/docs/errors/${entry.code}"><code>${entry.code}</code></a></td><td>${entry.number}</td>` +
        `<td>${entry.status}</td><td>${escapeHtml(entry.title)}</td></tr>`,
    )
    .join("\n");
  return (
    "<p>Every failure answers <code>{ok: false, request_id, error: {code, number, message, docs}}</code>. " +
    "Branch on <code>code</code> or <code>number</code>, never on <code>message</code>. " +
    "The thousands digit of the number is the family; 5xxx means retry with backoff.</p>" +
    `<table><thead><tr><th>code</th><th>number</th><th>status</th><th>meaning</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

function entryBody(entry: Entry): string {
  const carries = entry.carries ? `<p>Carries <code>error.${entry.carries}</code>.</p>` : "";
  return (
    `<p><strong>${escapeHtml(entry.title)}</strong></p><p>${escapeHtml(entry.description)}</p>` +
    `<dl><dt>HTTP status</dt><dd>${entry.status}</dd><dt>Number</dt><dd>${entry.number}</dd>` +
    `<dt>Family</dt><dd>${escapeHtml(entry.family)}</dd></dl>${carries}<p><a href="/docs/errors">All errors</a></p>`
  );
}

function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem}" +
    "table{border-collapse:collapse}td,th{padding:.25rem .75rem;border-bottom:1px solid #ddd;text-align:left}</style>" +
    `</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
