/**
 * Orderings of a search (reference gateway-surfaces §2.5: `order_by`, `order`) and the cursor that
 * continues one: opaque text naming the ordering and the last row's sort key, so a page after it
 * keeps the rows strictly after that key. Ties are broken by creation time, then artifact id.
 */
import { badRequest } from '@keel/plugin-sdk';
import type { SearchRow } from './search-row.js';

export type OrderKey = 'created_at' | 'size_bytes' | 'semantic_kind' | 'render_kind' | 'workflow_id' | 'run_id' | 'turn_id';
export type Direction = 'asc' | 'desc';

/** Accepted names of `order_by` (the reference's aliases included). */
export const ORDER_NAMES: Record<string, OrderKey> = {
  created_at: 'created_at', created: 'created_at',
  size: 'size_bytes', size_bytes: 'size_bytes',
  semantic_kind: 'semantic_kind', type: 'semantic_kind',
  render_kind: 'render_kind',
  workflow: 'workflow_id', workflow_id: 'workflow_id',
  run: 'run_id', run_id: 'run_id',
  turn: 'turn_id', turn_id: 'turn_id',
};

export type SortValue = string | number;

export function sortValueOf(row: SearchRow, key: OrderKey): SortValue {
  switch (key) {
    case 'created_at': return row.created_at;
    case 'size_bytes': return row.size;
    case 'semantic_kind': return row.semantic_kind;
    case 'render_kind': return row.render_kind;
    case 'workflow_id': return row.workflow_id ?? '';
    case 'run_id': return row.run ?? '';
    case 'turn_id': return row.turn_id ?? '';
  }
}

export interface Position {
  value: SortValue;
  created_at: string;
  id: string;
}

function compareValues(a: SortValue, b: SortValue): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Ascending comparison of two positions (value, then creation time, then id). */
export function comparePositions(a: Position, b: Position): number {
  return compareValues(a.value, b.value) || compareValues(a.created_at, b.created_at) || compareValues(a.id, b.id);
}

export function positionOf(row: SearchRow, key: OrderKey): Position {
  return { value: sortValueOf(row, key), created_at: row.created_at, id: row.id };
}

export interface Cursor extends Position {
  order_by: OrderKey;
  order: Direction;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.order_by, cursor.order, cursor.value, cursor.created_at, cursor.id])).toString('base64url');
}

const refuse = (why: string) => badRequest(`cursor ${why}; use the next_cursor of the previous page, unchanged.`, { code: 'invalid_cursor', field: 'cursor' });

/**
 * Reads a cursor of this ordering. The reference's plain form `<created_at>|<artifact_id>` is
 * accepted for the default ordering.
 */
export function decodeCursor(text: string, orderBy: OrderKey, order: Direction): Cursor {
  const bar = text.indexOf('|');
  if (bar > 0 && orderBy === 'created_at') {
    const createdAt = text.slice(0, bar);
    return { order_by: orderBy, order, value: createdAt, created_at: createdAt, id: text.slice(bar + 1) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw refuse('is not one this gateway made');
  }
  if (!Array.isArray(parsed) || parsed.length !== 5) throw refuse('is not one this gateway made');
  const [by, direction, value, createdAt, id] = parsed as unknown[];
  if (typeof value !== 'string' && typeof value !== 'number') throw refuse('is not one this gateway made');
  if (typeof createdAt !== 'string' || typeof id !== 'string') throw refuse('is not one this gateway made');
  if (by !== orderBy || direction !== order) throw refuse(`was made for order_by=${String(by)}&order=${String(direction)}, not order_by=${orderBy}&order=${order}`);
  return { order_by: orderBy, order, value, created_at: createdAt, id };
}
