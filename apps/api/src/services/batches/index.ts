export { Batches } from "./batches.ts";
