/** Matches a model name against a glob with "*" and "?" (case-sensitive). */
export function globMatch(glob: string, name: string): boolean {
  if (glob === "*") return true;
  if (!/[*?]/.test(glob)) return glob === name;
  const re = new RegExp("^" + glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".") + "$");
  return re.test(name);
}
