/** Prints a command's result for people: one `key: value` line per field, lists as blocks. */
export function render(result: unknown, indent = ""): string {
  if (Array.isArray(result)) {
    if (result.length === 0) return `${indent}(none)`;
    return result.map((item) => render(item, indent)).join(`\n${indent}--\n`);
  }
  if (result !== null && typeof result === "object") {
    return Object.entries(result)
      .map(([key, value]) =>
        value !== null && typeof value === "object"
          ? `${indent}${key}:\n${render(value, `${indent}  `)}`
          : `${indent}${key}: ${value === null ? "-" : String(value)}`,
      )
      .join("\n");
  }
  return `${indent}${String(result)}`;
}
