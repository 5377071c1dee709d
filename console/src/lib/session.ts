// The admin key lives in sessionStorage (this tab only, gone when it closes),
// never in a URL or in localStorage.
const SLOT = "omnigate.console.key";

export function savedKey(): string {
  try {
    return sessionStorage.getItem(SLOT) ?? "";
  } catch {
    return "";
  }
}

export function saveKey(key: string): void {
  try {
    sessionStorage.setItem(SLOT, key);
  } catch {
    // Storage disabled: the key stays in memory only.
  }
}

export function forgetKey(): void {
  try {
    sessionStorage.removeItem(SLOT);
  } catch {
    // Nothing stored.
  }
}
