import type { RequestHandler } from "express";
import { ApiError } from "../errors.ts";

/** Methods whose operations take a body in the contracts; every body they take is JSON. */
const bodyMethods = new Set(["POST", "PATCH", "PUT"]);

/**
 * Hands the request validator one of two content types, or none. express-openapi-validator
 * compiles a validator for each content type a request names, parameters included, and keeps it
 * for good: a stranger naming a new one with each `GET /health` made it compile without end (300
 * such requests cost 3.9 s of CPU and 23 MB of heap that stayed). So a request that takes no body
 * loses its `Content-Type`, a JSON body's becomes exactly `application/json`, and any other media
 * type is refused here, as validation would refuse it.
 */
export function boundContentTypes(): RequestHandler {
  return (req, _res, next) => {
    const declared = req.headers["content-type"];
    if (declared === undefined) return next();
    if (!bodyMethods.has(req.method)) {
      delete req.headers["content-type"];
      return next();
    }
    const mediaType = (declared.split(";")[0] ?? "").trim().toLowerCase();
    if (mediaType === "application/json") {
      req.headers["content-type"] = "application/json";
      return next();
    }
    next(
      new ApiError("invalid_request", "The body must be JSON, sent as Content-Type: application/json.", {
        extra: { issues: [{ path: "/headers/content-type", message: "must be application/json" }] },
      }),
    );
  };
}
