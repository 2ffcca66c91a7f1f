import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { readOpenApiDocument } from "@verbatim/contract";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/*
 * Sources name platforms; nothing else does (issue 32, "Done when"). Services ask the source
 * registry which source an input names and never branch on a platform's name, so no file of the
 * API outside `sources/` and `adapters/` holds a platform's name as a string: the names are those
 * of the contract's platform enums, read from the contract itself. Comments and prose in messages
 * are free to name platforms; tests beside the code are not the code.
 */

const sourceRoot = fileURLToPath(new URL("../../src/", import.meta.url));

/** Where platforms are named: the sources, and the adapters they read through. */
const namingFolders = ["sources/", "adapters/"];

/**
 * Files outside those folders that must name a value of a platform enum, each for a reason of the
 * contract's: v1's `resolved_via` knows `rss` and `direct` only, and says `rss` of every feed.
 */
const contractExceptions: Readonly<Record<string, readonly string[]>> = {
  "http/v1/shapes.ts": ["rss"],
};

/** Every value of the contract's platform enums: a transcript's, a list's, a search's and a monitor's. */
function platformNames(): Set<string> {
  const document = readOpenApiDocument("v2") as { components: { schemas: Record<string, unknown> } };
  const names = new Set<string>();
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(collect);
    else if (node && typeof node === "object") {
      const { enum: values, ...rest } = node as { enum?: unknown };
      if (Array.isArray(values)) for (const value of values) if (typeof value === "string") names.add(value);
      Object.values(rest).forEach(collect);
    }
  };
  for (const schema of ["Platform", "ListPlatform", "SearchPlatform", "MonitorPlatform"]) {
    collect(document.components.schemas[schema]);
  }
  return names;
}

/** The platform names a TypeScript file holds as strings: a whole string, or a key's prefix (`youtube:${id}`). */
function namedPlatforms(fileName: string, text: string, names: ReadonlySet<string>): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteralLike(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      const value = node.text;
      const named = names.has(value) ? value : [...names].find((name) => value.startsWith(`${name}:`));
      if (named) found.push(named);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

function typescriptFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return typescriptFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

describe("platform names outside sources/ and adapters/", () => {
  const names = platformNames();

  it("reads the platform names from the contract", () => {
    for (const name of ["youtube", "tiktok", "podcast", "file", "apple", "spotify", "rss"]) {
      expect(names.has(name), name).toBe(true);
    }
  });

  it("finds a platform's name as a string, and as a key's prefix, but not in comments", () => {
    const text = `// youtube\nconst a = "tiktok";\nconst b = \`podcast:\${id}\`;\nconst c = "TikTok";\n`;
    expect(namedPlatforms("probe.ts", text, names)).toEqual(["tiktok", "podcast"]);
  });

  it("appear in no file of the API but the contract's exceptions", () => {
    const named: Record<string, string[]> = {};
    for (const path of typescriptFiles(sourceRoot)) {
      const file = relative(sourceRoot, path);
      if (namingFolders.some((folder) => file.startsWith(folder))) continue;
      const found = namedPlatforms(file, readFileSync(path, "utf8"), names);
      if (found.length > 0) named[file] = found;
    }
    expect(named).toEqual(contractExceptions);
  });
});
