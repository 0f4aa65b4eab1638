// Hub-wide seat reads of reference §8.3: the board, the delegate's supervise view, activity stats.
// Only answers: none of these routes takes a body, and `/channels/{c}/supervise` uses `channelParams`.

const stringList = { type: 'array', items: { type: 'string' } } as const;
const num = { type: 'number' } as const;
const str = { type: 'string' } as const;
const int = { type: 'integer', minimum: 0 } as const;

/** A message row of the board: who waits on what, for how long. */
const boardRow = {
  type: 'object',
  required: ['channel', 'seq', 'id', 'sender', 'q', 'since', 'age_minutes', 'pending_asks', 'escalated'],
  properties: { channel: str, seq: int, id: str, sender: str, q: str, since: num, age_minutes: num, pending_asks: stringList, escalated: { type: 'boolean' } },
} as const;
const claimRow = {
  type: 'object', required: ['channel', 'task', 'owner', 'updated_by', 'updated_at'],
  properties: { channel: str, task: str, owner: str, updated_by: str, updated_at: num },
} as const;

export const boardResponse = {
  type: 'object',
  required: ['viewer', 'pending_on_me', 'queue', 'proposals', 'in_progress', 'pending_review', 'done', 'counts'],
  properties: {
    viewer: str,
    pending_on_me: { type: 'array', items: boardRow },
    queue: { type: 'array', items: { type: 'object', required: ['channel', 'key', 'updated_by'], properties: { channel: str, key: str, updated_by: str } } },
    proposals: { type: 'array', items: boardRow },
    in_progress: { type: 'array', items: claimRow },
    pending_review: { type: 'array', items: { ...claimRow, required: [...claimRow.required, 'review'], properties: { ...claimRow.properties, review: { enum: ['operator', 'delegate'] } } } },
    done: {
      type: 'array',
      items: { type: 'object', required: ['channel', 'key', 'version', 'updated_by', 'updated_at'], properties: { channel: str, key: str, version: int, updated_by: str, updated_at: num } },
    },
    counts: {
      type: 'object',
      required: ['pending_on_me', 'queue', 'proposals', 'in_progress', 'pending_review', 'done_shown', 'done_total'],
      properties: { pending_on_me: int, queue: int, proposals: int, in_progress: int, pending_review: int, done_shown: int, done_total: int },
    },
  },
} as const;

const supervisedSeat = {
  type: 'object',
  required: ['seat', 'live', 'mission', 'reception', 'working_on', 'parked', 'holds_nothing', 'quiet_minutes'],
  properties: {
    seat: str, live: { type: 'boolean' }, mission: str, reception: str, working_on: stringList, parked: stringList,
    holds_nothing: { type: 'boolean' }, quiet_minutes: { type: ['number', 'null'] },
  },
} as const;
const blockedClaim = {
  type: 'object',
  required: ['key', 'owner', 'blocked_on', 'needs', 'needs_from', 'idle_minutes', 'you_can_act', 'move'],
  properties: {
    key: str, owner: str, blocked_on: str, needs: str, needs_from: { type: ['string', 'null'] }, idle_minutes: num,
    you_can_act: { type: 'boolean' }, move: str, channel: str,
  },
} as const;

/** `GET /channels/{c}/supervise`. */
export const superviseChannelResponse = {
  type: 'object',
  required: ['channel', 'your_powers', 'open_phases', 'seats', 'idle_but_live', 'blocked', 'needs_the_operator', 'summary'],
  properties: {
    channel: str, your_powers: stringList,
    open_phases: { type: 'array', items: { type: 'object', required: ['key', 'current', 'next', 'steward'], properties: { key: str, current: {}, next: {}, steward: {} } } },
    seats: { type: 'array', items: supervisedSeat }, idle_but_live: stringList,
    blocked: { type: 'array', items: blockedClaim }, needs_the_operator: stringList, summary: str,
  },
} as const;

/** `GET /supervise`: every room a grant of the caller reaches. */
export const superviseAllResponse = {
  type: 'object',
  required: ['rooms', 'idle_but_live', 'blocked', 'needs_the_operator', 'summary'],
  properties: {
    rooms: { type: 'object', additionalProperties: superviseChannelResponse },
    idle_but_live: stringList, blocked: { type: 'array', items: blockedClaim }, needs_the_operator: stringList, summary: str,
  },
} as const;

const activitySlot = {
  type: 'object', required: ['start', 'label', 'total', 'public', 'dm'],
  properties: { start: num, label: str, total: int, public: int, dm: int },
} as const;
const activityTotals = { type: 'object', required: ['total', 'public', 'dm'], properties: { total: int, public: int, dm: int } } as const;

/** `GET /stats/activity`. */
export const activityStatsResponse = {
  type: 'object',
  required: ['now', 'windows', 'per_minute', 'per_bucket', 'totals', 'rate_per_minute', 'active_seats', 'active_seat_count', 'last_message_at', 'quiet_for_seconds', 'verdict'],
  properties: {
    now: num,
    windows: { type: 'object', required: ['per_minute_slots', 'bucket_seconds', 'bucket_slots'], properties: { per_minute_slots: int, bucket_seconds: num, bucket_slots: int } },
    per_minute: { type: 'array', items: activitySlot },
    per_bucket: { type: 'array', items: activitySlot },
    totals: { type: 'object', required: ['last_10m', 'last_60m'], properties: { last_10m: activityTotals, last_60m: activityTotals } },
    rate_per_minute: { type: 'object', required: ['last_10m', 'last_60m'], properties: { last_10m: num, last_60m: num } },
    active_seats: stringList, active_seat_count: int, last_message_at: { type: ['number', 'null'] },
    quiet_for_seconds: { type: ['number', 'null'] }, verdict: str,
  },
} as const;
