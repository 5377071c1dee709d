const compiled = new Map<string, RegExp>();

/** Matches a model name against a glob with "*" and "?" (case-sensitive). */
export function globMatch(glob: string, name: string): boolean {
  if (glob === "*") return true;
  if (!/[*?]/.test(glob)) return glob === name;
  let re = compiled.get(glob);
  if (!re) {
    re = new RegExp(
      "^" +
        glob
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, ".*")
          .replace(/\?/g, ".") +
        "$",
    );
    // Globs come from the configuration, so the cache stays small; the bound is a guard.
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(glob, re);
  }
  return re.test(name);
}
