export { type StartVerbatimOptions, startVerbatim, type VerbatimService } from "./verbatim-service.ts";
