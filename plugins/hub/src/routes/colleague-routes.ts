/** Colleague notes (reference §8.5): a seat's private notes about other seats. */
import { colleagueNoteBody, colleagueNoteResponse, colleagueNotesResponse, colleagueParams as colleagueParamsWire, colleaguesQuery } from '@keel/hub-client/wire';
import { defineSchema, route } from '@keel/plugin-sdk';
import type { Hub } from '../hub.js';
import type { ColleagueNotes } from '../identity/colleague-notes.js';

const notesQuery = defineSchema(colleaguesQuery);
const colleagueParams = defineSchema(colleagueParamsWire);
const noteBody = defineSchema(colleagueNoteBody);

export function colleagueRoutes(hub: Hub, notes: ColleagueNotes) {
  return [
    route({
      method: 'GET', path: '/colleagues', auth: hub.auth.seatKey, tags: ['hub'], summary: "The caller's own notes about other seats, sorted by subject (?subject= for one)",
      query: notesQuery, responses: { 200: { schema: defineSchema(colleagueNotesResponse) } },
      handler: ({ principal: seat, query }) => notes.of(seat.id, query.subject),
    }),
    route({
      method: 'PUT', path: '/colleagues/:seat', auth: hub.auth.seatKey, tags: ['hub'], summary: 'Write (or replace) your private note about a seat',
      params: colleagueParams, body: noteBody, responses: { 200: { schema: defineSchema(colleagueNoteResponse) } },
      handler: ({ principal: seat, params, body }) => notes.set(seat.id, params.seat, body.note),
    }),
  ];
}
