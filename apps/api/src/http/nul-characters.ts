import type { RequestHandler } from "express";
import { ApiError, type ValidationIssue } from "../errors.ts";

/**
 * Refuses U+0000 in a path parameter, a query value or a string of the JSON body with 400
 * `invalid_request`. The contract's strings allow any character, but PostgreSQL's text
 * cannot hold NUL: such a value, once it reached a statement (a monitor id looked up, a search
 * stored, an idempotency key recorded), failed there as a 500. Runs after schema validation,
 * so a request with other problems hears those first.
 */
export function refuseNulCharacters(): RequestHandler {
  return (req, _res, next) => {
    const issues: ValidationIssue[] = [];
    const pathParameters = (req as { openapi?: { pathParams?: Record<string, unknown> } }).openapi?.pathParams ?? {};
    for (const [name, value] of Object.entries(pathParameters))
      collect(value, `/params/${pointerSegment(name)}`, issues);
    for (const [name, value] of Object.entries(req.query ?? {}))
      collect(value, `/query/${pointerSegment(name)}`, issues);
    if (req.body !== undefined) collect(req.body, "/body", issues);
    if (issues.length === 0) {
      next();
      return;
    }
    next(new ApiError("invalid_request", "The request holds a NUL character (U+0000).", { extra: { issues } }));
  };
}

function collect(value: unknown, path: string, issues: ValidationIssue[]): void {
  if (typeof value === "string") {
    if (value.includes("\u0000")) issues.push({ path, message: "must not contain U+0000" });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) collect(item, `${path}/${index}`, issues);
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\u0000")) issues.push({ path, message: "must not have a property name containing U+0000" });
      collect(item, `${path}/${pointerSegment(key)}`, issues);
    }
  }
}

/** One segment of a JSON pointer (RFC 6901). */
function pointerSegment(segment: string): string {
  return segment.replaceAll("~", "~0").replaceAll("/", "~1");
}
