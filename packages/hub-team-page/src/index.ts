/**
 * `@keel/hub-team-page`: the hub's team page as plain browser ES modules. `mountTeamPage(root,
 * props)` renders it around any hub client of the `TeamHub` shape (a same-origin `HubClient` when
 * `props.hub` is omitted); `main.js` boots it on the served index.html with no optional props.
 */
export { TeamPage, mountTeamPage, type TeamPageOptions } from './team-page.js';
export type {
  Advisor, AdvisorMessage, AdvisorRequest, FocusOutcome, FocusTarget, SpeakableMessage, SpeakMessage, TeamPageProps, TeamPageUpdate,
} from './props.js';
export { hubBaseFor } from './hub-base.js';
export { highlightSegments, type SnippetSegment } from './highlights.js';
export { threadOrder, type ThreadRow } from './threading.js';
export { LiveSocket, reconnectDelay, type LiveEnvelope, type LiveState } from './live-socket.js';
export { refusalOf, type Refusal } from './refusal-area.js';
export { workIdsIn, workIdsOf, WORK_ID } from './work-ids.js';
export { assistantQuestion, ASSISTANT_COMMAND } from './assistant-command.js';
export { attachmentsOf, isInlineRaster, INLINE_RASTER, formatSize } from './attachments.js';
export { verdictOf, verdictText, type LedgerVerdict } from './ledger-view.js';
export { dmChannelName, dmPeer } from './channel-rail.js';
export { PINNED_PROTOCOL, type TeamHub } from './hub-types.js';
