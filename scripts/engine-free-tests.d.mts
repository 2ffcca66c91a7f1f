/** The test files under the config's project that the PostgreSQL pass leaves out, relative to it; none on the embedded pass. */
export function engineFreeTestsOnSecondPass(configUrl: string | URL): string[];

/** Test files, or folders of them, relative to the repository, that reach the store but that the engine cannot change: why, each. */
export const engineIndependent: ReadonlyMap<string, string>;
