import { type ErrorRequestHandler, type RequestHandler, Router } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { ApiError } from "../errors.ts";
import type { Allowance } from "../services/accounts/index.ts";
import type { AppDeps } from "./app-deps.ts";
import { authenticate } from "./auth.ts";
import { boundContentTypes } from "./content-types.ts";
import { idempotent } from "./idempotency.ts";
import { refuseLooseIntegers } from "./integer-queries.ts";
import { nameOperation } from "./metrics.ts";
import { refuseNulCharacters } from "./nul-characters.ts";
import type { Operation } from "./operations.ts";
import { authenticatedBodyLimits, publicBodyLimits, readJsonBody } from "./request-body.ts";
import { type LiveRoute, recordSentBodyFields } from "./route.ts";
import { holdExtractionSlot } from "./slots.ts";

/** One API (a version of the public API, or the dashboard's): its document, and what it adds around its routes. */
export interface ApiVersion<Id extends string> {
  /** Where the API is mounted: `/api/v2`. */
  basePath: string;
  /** The API's OpenAPI document, as JSON (`openApiJsonPaths`), which validates every request. */
  documentPath: string;
  /** The operations of that document. */
  operations: readonly Operation<Id>[];
  /** Operations anyone may call: no key, no allowance. */
  publicOperations: ReadonlySet<Id>;
  /** Which allowance an authenticated operation counts against. */
  allowanceOf(operationId: Id): Allowance;
  /** Operations of the document that are not live on a server without some configuration, and what brings them. */
  pendingWork?: Partial<Record<Id, string>>;
  /** Runs first on every request of the version, whatever its path. */
  onEveryRequest?: RequestHandler;
  /** Runs after idempotency and before the route's own guards: where a version reshapes the route's answer. */
  aroundRoute?: (operationId: Id) => RequestHandler;
  /** Writes the version's failures; without one they reach the application's handler. */
  errorHandler?: ErrorRequestHandler;
}

/**
 * The router of one API version over the live routes. Every version shares the routes, and so
 * authentication, allowances, idempotency, slots and charging; each validates requests
 * against its own document.
 */
export function apiRouter<Id extends string>(
  deps: AppDeps,
  version: ApiVersion<Id>,
  routes: readonly LiveRoute<Id>[],
): Router {
  const router = Router();
  if (version.onEveryRequest) router.use(version.onEveryRequest);
  // HEAD is GET without the body (RFC 9110 9.3.2); the contract names only GET, so HEAD runs as
  // GET, and Node's response, which knows the request was HEAD, sends no body.
  router.use((req, _res, next) => {
    if (req.method === "HEAD") req.method = "GET";
    next();
  });
  // The key is checked before the body is read (docs/decisions.md, rule 2): a request without a valid key hears 401,
  // whatever it sent.
  // Only operations that take a body parse one, so nothing is parsed for an unknown path, a GET, or a stranger;
  // an operation without a key reads no more than its few fields need.
  const { config } = deps;
  const readPublicBody = readJsonBody({
    ...publicBodyLimits,
    deadlineMs: config.publicBodyDeadlineMs ?? publicBodyLimits.deadlineMs,
  });
  const readBody = readJsonBody({
    ...authenticatedBodyLimits,
    deadlineMs: config.bodyDeadlineMs ?? authenticatedBodyLimits.deadlineMs,
  });
  const live = new Map(routes.map((route) => [route.operationId, route]));
  const validation: RequestHandler[] = [
    // The validator fills in defaults; routes that must tell "sent" from "defaulted" read this.
    recordSentBodyFields(),
    boundContentTypes(),
    ...documentValidator(version.documentPath, deps.validateResponses === true),
    refuseNulCharacters(),
  ];
  // One route per operation, holding its whole chain in order: the router matches each request's
  // path against every operation once, where a layer per step would match it once per step.
  for (const operation of version.operations) {
    const route = live.get(operation.operationId);
    const isPublic = version.publicOperations.has(operation.operationId);
    const extractionSlot = route?.holdsExtractionSlot === true;
    const guards = isPublic ? [] : [authenticate(deps, version.allowanceOf(operation.operationId), { extractionSlot })];
    const takesBody = operation.method === "post" || operation.method === "patch" || operation.method === "put";
    const bodyReaders = takesBody ? [isPublic ? readPublicBody : readBody] : [];
    const integerQueries =
      operation.integerQueryParameters.length > 0 ? [refuseLooseIntegers(operation.integerQueryParameters)] : [];
    const idempotency = !isPublic && operation.idempotent ? [idempotent(deps)] : [];
    const around = version.aroundRoute ? [version.aroundRoute(operation.operationId)] : [];
    const slot = extractionSlot ? [holdExtractionSlot(deps)] : [];
    const routeGuards = isPublic ? [] : [...slot, ...(route?.guards ?? [])];
    router[operation.method](
      operation.expressPath,
      nameOperation(operation.operationId),
      ...guards,
      ...bodyReaders,
      ...integerQueries,
      ...validation,
      ...idempotency,
      ...around,
      ...routeGuards,
      route?.handler ?? notLiveYet(version, operation),
    );
  }
  // A path or method no operation has reaches the validator alone, which answers it 404 or 405.
  router.use(...validation);
  if (version.errorHandler) router.use(version.errorHandler);
  return router;
}

/** The validators made so far in this process, by document and whether they check responses. */
const validators = new Map<string, RequestHandler[]>();

/**
 * The validator of an OpenAPI document. Compiling a document takes over a second of CPU, so a
 * process makes each once and every app it builds shares it (tests build hundreds); the
 * validator keeps nothing of a request once it has answered.
 */
function documentValidator(documentPath: string, validateResponses: boolean): RequestHandler[] {
  const key = JSON.stringify([documentPath, validateResponses]);
  let validator = validators.get(key);
  if (!validator) {
    validator = OpenApiValidator.middleware({
      apiSpec: documentPath,
      validateApiSpec: false,
      validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
      // The default "fast" format mode lets impossible dates such as 2026-02-30 through.
      ajvFormats: { mode: "full" },
      validateResponses: validateResponses ? { allErrors: true } : false,
      validateSecurity: false,
      ignoreUndocumented: false,
    }) as RequestHandler[];
    validators.set(key, validator);
  }
  return validator;
}

/** The handler of an operation of the contract that this server does not serve yet. */
function notLiveYet<Id extends string>(version: ApiVersion<Id>, operation: Operation<Id>): RequestHandler {
  return () => {
    const pendingWork = version.pendingWork?.[operation.operationId];
    throw new ApiError(
      "not_found",
      `${operation.method.toUpperCase()} ${version.basePath}${operation.path} is part of the contract but not live on this server yet (it comes with ${pendingWork ?? "later work"}).`,
    );
  };
}
