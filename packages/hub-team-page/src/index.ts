/**
 * `@keel/hub-team-page`: the hub's team page as plain browser ES modules. `mountTeamPage(root,
 * {hub})` renders it around any hub client of the `TeamHub` shape; `main.js` boots it on the
 * served index.html with a same-origin `HubClient`.
 */
export { TeamPage, mountTeamPage, type TeamPageOptions } from './team-page.js';
export { hubBaseFor } from './hub-base.js';
export { highlightSegments, type SnippetSegment } from './highlights.js';
export { threadOrder, type ThreadRow } from './threading.js';
export { LiveSocket, reconnectDelay, type LiveEnvelope, type LiveState } from './live-socket.js';
export { refusalOf, type Refusal } from './refusal-area.js';
export { PINNED_PROTOCOL, type TeamHub } from './hub-types.js';
