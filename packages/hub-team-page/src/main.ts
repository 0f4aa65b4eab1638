/** Boots the team page on index.html: a same-origin hub client and the page in `#team-page`. */
import { HubClient } from '@keel/hub-client';
import { hubBaseFor } from './hub-base.js';
import type { TeamHub } from './hub-types.js';
import { mountTeamPage } from './team-page.js';

const root = document.getElementById('team-page');
if (root) {
  const declared = document.querySelector<HTMLMetaElement>('meta[name="keel-hub-base"]')?.content;
  const hub: TeamHub = new HubClient({ base_url: hubBaseFor(location.pathname, declared) });
  mountTeamPage(root, { hub });
}
