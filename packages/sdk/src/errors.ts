import { errorCodes, errorFamilies } from "../generated/errors.ts";
import { ApiError, type ErrorBody, type ErrorContext } from "./api-error.ts";

/** The error class of an answered error: its code's family, or for a code newer than this SDK, its number's family. */
export function apiErrorFrom(body: ErrorBody, context: ErrorContext): ApiError {
  const known = errorCodes[body.code as keyof typeof errorCodes];
  const Family =
    known?.family ?? errorFamilies[Math.floor(body.number / 1000) as keyof typeof errorFamilies] ?? ApiError;
  return new Family(body, context);
}
