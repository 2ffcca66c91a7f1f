export type Engine = "embedded" | "postgres";

/** A test, or a suite of them, CI expects to skip on the engines named, and why. */
export interface ExpectedSkip {
  file: string;
  test: string;
  engines: Engine[];
  why: string;
}

/** Every skip CI expects; any other fails a CI run. */
export const expectedSkips: ReadonlyArray<ExpectedSkip>;

/** The engine this pass runs on: `postgres` when DATABASE_URL names a server, else `embedded`. */
export function currentEngine(): Engine;

/** Whether CI expects the test `fullName` of `file` (relative to the repository) to skip on `engine`. */
export function isExpectedSkip(file: string, fullName: string, engine: Engine): boolean;
