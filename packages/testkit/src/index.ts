export {
  type StartVerbatimOptions,
  spawnVerbatim,
  startVerbatim,
  type VerbatimService,
} from "./verbatim-service.ts";
