export { isAnswerable, toApiError, translationUnavailable } from "./source-failures.ts";
