/**
 * Where the hub lives relative to the page. The page is served at `<hub prefix>/ui/`, so the hub
 * base is the path before `/ui/` (`/hub/ui/` → `/hub`). A host can say otherwise with
 * `<meta name="keel-hub-base" content="…">` (used verbatim; a relative value resolves against the page).
 */
export function hubBaseFor(pathname: string, declared: string | null | undefined): string {
  if (typeof declared === 'string' && declared.trim() !== '') return declared.trim();
  const at = pathname.lastIndexOf('/ui/');
  if (at >= 0) return pathname.slice(0, at);
  if (pathname.endsWith('/ui')) return pathname.slice(0, -3);
  return '';
}
