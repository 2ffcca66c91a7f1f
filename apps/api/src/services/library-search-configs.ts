import { type SQL, sql } from "drizzle-orm";

/**
 * PostgreSQL's text search configurations by ISO 639-1 code. Each is used only where the
 * database has it (PostgreSQL 15 lacks several that 16 and PGlite have); otherwise `simple`,
 * which lower-cases words without stemming or stop words.
 */
const searchConfigs: Readonly<Record<string, string>> = {
  ar: "arabic",
  ca: "catalan",
  da: "danish",
  de: "german",
  el: "greek",
  en: "english",
  es: "spanish",
  et: "estonian",
  eu: "basque",
  fi: "finnish",
  fr: "french",
  ga: "irish",
  hi: "hindi",
  hu: "hungarian",
  hy: "armenian",
  id: "indonesian",
  it: "italian",
  lt: "lithuanian",
  nb: "norwegian",
  ne: "nepali",
  nl: "dutch",
  nn: "norwegian",
  no: "norwegian",
  pt: "portuguese",
  ro: "romanian",
  ru: "russian",
  sr: "serbian",
  sv: "swedish",
  ta: "tamil",
  tr: "turkish",
  yi: "yiddish",
};

/**
 * The text search configuration of a BCP-47 language's primary subtag (`pt-BR` is `portuguese`),
 * where the database has it, else `simple`; in SQL, so a statement that reads the language
 * chooses it.
 */
export function searchConfigOf(language: SQL): SQL {
  return sql`coalesce((select cfgname::text from pg_ts_config
                        where cfgname = ${JSON.stringify(searchConfigs)}::jsonb ->> split_part(replace(lower(${language}), '_', '-'), '-', 1)),
                      'simple')`;
}
