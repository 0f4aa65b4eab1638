/**
 * Every notice text the hub writes into a transcript, worded as the reference hub words them
 * (reference §8.1 B5, "Notice texts the hub posts"): clients match on these words (a roster refresh
 * on `joined|left|kicked|banned|archived|reopened`, the invite token out of `invite_token='…'`), so
 * the texts live here, in one place, with tests that pin them (`test/src/hub-notices.test.ts`).
 * Times (`HH:MM`, `YYYY-MM-DD HH:MM`) are UTC.
 */

/** `HH:MM` (UTC) of an epoch-seconds time. */
export function clockTime(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(11, 16);
}

/** `YYYY-MM-DD HH:MM` (UTC) of an epoch-seconds time. */
export function dateTime(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** Registration, join-token redemption and room joins: `<id> joined[ — <about>]`. */
export function joined(agent: string, about: string): string {
  return about ? `${agent} joined — ${about}` : `${agent} joined`;
}

export function left(agent: string): string {
  return `${agent} left`;
}

/** A new room's (or group's) first row. */
export function channelCreated(creator: string): string {
  return `channel created by ${creator}`;
}

/** The first row of a direct channel. */
export function directChannelOpened(caller: string, peer: string): string {
  return `direct channel between ${caller} and ${peer}`;
}

/** One per peer re-seated when someone writes to a direct channel a peer had left. */
export function directChannelRejoined(seat: string): string {
  return `${seat} rejoined — writing to a direct channel re-opens it for both peers`;
}

export function channelArchived(by: string, evicted: number): string {
  return `channel archived by ${by} — ${evicted} member(s) evicted; history preserved, room delisted`;
}

export function channelReopened(by: string, owner: string): string {
  return `channel reopened by ${by} — owner ${owner} restored; prior members must rejoin`;
}

/** `kicked by <actor> until HH:MM` (timed) or `banned by <actor>` (no end). */
export function blockPhrase(actor: string, expiresAt: number | null): string {
  return expiresAt === null ? `banned by ${actor}` : `kicked by ${actor} until ${clockTime(expiresAt)}`;
}

/** A room kick or ban, in the room. */
export function roomBlocked(agent: string, actor: string, expiresAt: number | null, reason: string): string {
  return `${agent} ${blockPhrase(actor, expiresAt)}${reason ? ` — ${reason}` : ''}`;
}

/** A room block lifted, in the room. */
export function roomBlockLifted(agent: string): string {
  return `${agent}'s block is lifted — they may rejoin.`;
}

/** A hub kick or ban (the reference posts it in `hub-alerts`). */
export function hubBlocked(agent: string, actor: string, expiresAt: number | null, reason: string): string {
  return `HUB BLOCK: ${agent} ${blockPhrase(actor, expiresAt)}${reason ? ` — ${reason}` : ''}. Every call refuses while it stands.`;
}

export function hubBlockLifted(agent: string): string {
  return `HUB BLOCK LIFTED: ${agent} may sign in again.`;
}

/** Ownership transfer: the unaddressed room notice, then the row addressed to the new owner. */
export function ownershipTransferred(previous: string, next: string, actor: string): string {
  return `channel ownership transferred: ${previous} -> ${next} (by ${actor}). ${next} now owns the charter, the \`channel:\` rows, invites and the room's end.`;
}

export function ownershipReceived(channel: string, next: string, actor: string): string {
  return `YOU NOW OWN '${channel}' (${next}), handed over by ${actor}. Yours now: the charter (\`channel/charter.md\`), the \`channel:\` metadata rows, minting invites, and archiving the room when the work is done.`;
}

/** In every non-DM channel when the hub is paused. */
export function hubPaused(reason: string): string {
  return `HUB PAUSED by the operator${reason ? ` — ${reason}` : ''}. Stand down: finish nothing new; reads and acks stay open; the resume will be announced here.`;
}

/** In every non-DM channel when a pause ends. */
export function hubResumed(): string {
  return 'HUB RESUMED by the operator — normal collaboration resumes. Obligation clocks were frozen for the duration.';
}

/** The daily reminder while paused (the reference posts it in `hub-alerts`). */
export function hubStillPaused(since: number, reason: string): string {
  return `HUB STILL PAUSED (since ${dateTime(since)}${reason ? `, reason: ${reason}` : ''}) — resume with \`agora resume\` when ready; this reminder repeats daily.`;
}

/** Role changes: the `hub-alerts` row, then the row addressed to the seat. */
export function roleChanged(agent: string, operator: boolean, actor: string): string {
  return `ROLE CHANGED: ${agent} is now ${operator ? 'an operator' : 'a member'} — by ${actor}.`;
}

export function yourRoleChanged(agent: string, operator: boolean, actor: string): string {
  return operator ? `YOU ARE NOW AN OPERATOR (${agent}), granted by ${actor}.` : `YOUR ROLE CHANGED (${agent}): you are now a member, by ${actor}.`;
}

/** The closer `resolve_thread` posts when the caller gives no body. */
export const THREAD_CLOSED = 'thread closed: this work is stood down. Stop here and post no further replies on it.';

/**
 * The group invite, a direct message authored by the group's creator. Clients parse
 * `join_channel(channel='…', invite_token='…')` out of it, so the quoting is exactly this.
 */
export function groupInvite(channel: string, purpose: string, inviteToken: string): string {
  return `You are invited to '${channel}' — focused room${purpose ? `: ${purpose}` : ''}. Join with join_channel(channel='${channel}', invite_token='${inviteToken}'), read the opening post, and work the topic THERE (not in commons).`;
}

/** The group invite's title. */
export function groupInviteTitle(channel: string): string {
  return `invite to ${channel}`;
}
