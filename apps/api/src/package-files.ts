import { fileURLToPath } from "node:url";

/**
 * A file of the API package by its path from the package's directory. This module sits one level
 * below that directory both as a source (src/) and compiled into the bundle (dist/), so files
 * outside the code (the model, the migrations) are found from either.
 */
export function packagePath(pathInPackage: string): string {
  return fileURLToPath(new URL(`../${pathInPackage}`, import.meta.url));
}
