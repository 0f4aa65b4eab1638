/** What every part of the page shares: host props, the hub client, state, calls, views, rendering and the live socket. */
import type { TeamHub } from '../hub-types.js';
import type { LiveSocket } from '../live-socket.js';
import type { TeamPageProps } from '../props.js';
import type { PageCalls } from './calls.js';
import type { PageRender } from './render.js';
import type { PageState } from './state.js';
import type { PageViews } from './views.js';

export interface PageContext {
  /** The page's own copy of the host props (`update` patches it). */
  readonly props: TeamPageProps;
  readonly hub: TeamHub;
  readonly state: PageState;
  readonly calls: PageCalls;
  readonly views: PageViews;
  readonly render: PageRender;
  readonly live: LiveSocket;
}
