import type { RequestHandler } from "express";
import { ApiError } from "../errors.ts";

/** An integer as a person writes it: an optional minus, then decimal digits without a leading zero. */
const decimalInteger = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * Refuses, before validation, an integer query parameter not written as a plain decimal integer.
 * The validator coerces query strings as JavaScript's `Number` reads them, so `1e2`, `0x64`,
 * ` 100` (`%20100`) and `+100` would pass as 100, and `Infinity` as a number.
 */
export function refuseLooseIntegers(names: readonly string[]): RequestHandler {
  return (req, _res, next) => {
    const query = req.query as Record<string, unknown>;
    const loose = names.filter((name) => valuesOf(query[name]).some((value) => !decimalInteger.test(value)));
    if (loose.length > 0) {
      throw new ApiError("invalid_request", "The request failed validation.", {
        extra: { issues: loose.map((name) => ({ path: `/query/${name}`, message: "must be a decimal integer" })) },
      });
    }
    next();
  };
}

/** The strings a query parameter was sent as: none, one, or one per repetition. */
function valuesOf(parsed: unknown): string[] {
  if (parsed === undefined) return [];
  return (Array.isArray(parsed) ? parsed : [parsed]).map(String);
}
