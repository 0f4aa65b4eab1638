/**
 * The gateway token, kept in this tab's sessionStorage so a reload keeps it and closing the tab
 * forgets it; never in localStorage, a cookie or the URL. Where storage is refused, in memory only.
 */
const KEY = 'keel.voice.token';

let memory: string | null = null;

export function readToken(): string | null {
  try {
    return sessionStorage.getItem(KEY) ?? memory;
  } catch {
    return memory;
  }
}

export function saveToken(token: string): void {
  memory = token;
  try {
    sessionStorage.setItem(KEY, token);
  } catch {
    // Storage refused: memory is enough for this page's life.
  }
}

export function forgetToken(): void {
  memory = null;
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}
