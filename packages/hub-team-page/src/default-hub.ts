/**
 * The hub client the page makes when the host passes none: a same-origin `HubClient` whose base is
 * the path before `/ui/` (the page is served at `<hub prefix>/ui/`), or the page's
 * `<meta name="keel-hub-base" content="…">` when present.
 */
import { HubClient } from '@keel/hub-client';
import { hubBaseFor } from './hub-base.js';
import type { TeamHub } from './hub-types.js';

export function defaultHub(): TeamHub {
  const declared = document.querySelector<HTMLMetaElement>('meta[name="keel-hub-base"]')?.content;
  return new HubClient({ base_url: hubBaseFor(location.pathname, declared) });
}
