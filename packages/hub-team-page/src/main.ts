/** Boots the team page on index.html: the default same-origin hub client and no optional host props. */
import { mountTeamPage } from './team-page.js';

const root = document.getElementById('team-page');
if (root) mountTeamPage(root);
