/** The test files under the config's project that the PostgreSQL pass leaves out, relative to it; none on the embedded pass. */
export function engineFreeTestsOnSecondPass(configUrl: string | URL): string[];
