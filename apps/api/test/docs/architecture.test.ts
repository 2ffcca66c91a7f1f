import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repositoryRoot = fileURLToPath(new URL("../../../../", import.meta.url));

interface Layer {
  name: string;
  modules: string[];
  importsFrom: Set<string>;
  /** Modules of the layers it imports from that it still may not import (`Leaf but \`errors.ts\``). */
  except: Set<string>;
}

type PathRule = string | string[] | undefined;
interface ForbiddenRule {
  name: string;
  from: { path?: PathRule; pathNot?: PathRule };
  to: { path?: PathRule; pathNot?: PathRule; circular?: boolean };
}

/** The rows of the layer table in docs/architecture.md. */
function documentedLayers(): Layer[] {
  const document = readFileSync(`${repositoryRoot}docs/architecture.md`, "utf8");
  const section = document.split("## Layers of the API")[1]?.split("\n## ")[0] ?? "";
  const rows = section.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("| Layer |"));
  return rows.map((row) => {
    const [name = "", modules = "", importsFrom = ""] = row
      .split("|")
      .slice(1, 4)
      .map((cell) => cell.trim());
    const names = importsFrom === "–" ? [] : importsFrom.split(",").map((item) => item.trim());
    return {
      name,
      modules: [...modules.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string),
      importsFrom: new Set(names.map((item) => item.split(" but ")[0] as string)),
      except: new Set(
        names.flatMap((item) => [...(item.split(" but ")[1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1] as string)),
      ),
    };
  });
}

/** A module of the row as dependency-cruiser names one: a folder's file, or the file itself; a service through its face. */
function samplePath(module: string, side: "from" | "to"): string {
  if (module === "services/") return `apps/api/src/services/${side === "from" ? "asking/rules.ts" : "asked/index.ts"}`;
  return `apps/api/src/${module.endsWith("/") ? `${module}module.ts` : module}`;
}

const patterns = (rule: PathRule): string[] => (rule === undefined ? [] : Array.isArray(rule) ? rule : [rule]);

/** Whether a forbidden rule of dependency-cruiser refuses the import, with `$1` taken from the importer's match. */
function refuses(rule: ForbiddenRule, from: string, to: string): boolean {
  if (rule.to.circular !== undefined || rule.from.path === undefined) return false;
  const fromMatch = patterns(rule.from.path)
    .map((pattern) => new RegExp(pattern).exec(from))
    .find((match) => match !== null);
  if (!fromMatch) return false;
  if (patterns(rule.from.pathNot).some((pattern) => new RegExp(pattern).test(from))) return false;
  const bound = (pattern: string) => new RegExp(pattern.replaceAll("$1", fromMatch[1] ?? ""));
  if (!patterns(rule.to.path).some((pattern) => bound(pattern).test(to))) return false;
  return !patterns(rule.to.pathNot).some((pattern) => bound(pattern).test(to));
}

const layers = documentedLayers();
const rules = (
  createRequire(import.meta.url)(`${repositoryRoot}.dependency-cruiser.cjs`) as { forbidden: ForbiddenRule[] }
).forbidden;

describe("docs/architecture.md's layer table", () => {
  it("names every layer of the API, each with its modules", () => {
    expect(layers.map((layer) => layer.name)).toEqual([
      "Composition",
      "Delivery",
      "Services",
      "Sources",
      "Adapters",
      "Store",
      "Leaf",
    ]);
    for (const layer of layers) expect(layer.modules.length, layer.name).toBeGreaterThan(0);
  });

  it("says of every import between two layers what dependency-cruiser's rules say", () => {
    const disagreements: string[] = [];
    for (const importer of layers) {
      for (const imported of layers) {
        if (importer === imported) continue;
        for (const fromModule of importer.modules) {
          for (const toModule of imported.modules) {
            const from = samplePath(fromModule, "from");
            const to = samplePath(toModule, "to");
            const documented = importer.importsFrom.has(imported.name) && !importer.except.has(toModule);
            const refusedBy = rules.find((rule) => refuses(rule, from, to))?.name;
            if (documented === (refusedBy === undefined)) continue;
            disagreements.push(
              documented
                ? `${fromModule} → ${toModule}: the table allows it, ${refusedBy} refuses it`
                : `${fromModule} → ${toModule}: the table forbids it, no rule refuses it`,
            );
          }
        }
      }
    }
    expect(disagreements).toEqual([]);
  });

  it("fails when a rule and the table part", () => {
    const loosened = rules.filter((rule) => rule.name !== "delivery-is-given-its-services");
    const delivery = samplePath("http/", "from");
    expect(loosened.some((rule) => refuses(rule, delivery, samplePath("main.ts", "to")))).toBe(false);
    expect(rules.some((rule) => refuses(rule, delivery, samplePath("main.ts", "to")))).toBe(true);
  });
});
