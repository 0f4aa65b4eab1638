/**
 * KG terms (reference runtime-nodes §8.7): the allowed predicates of the origin's semantics
 * registry, its aliases, and the normalisation of subjects, predicates and objects (trimmed,
 * lowercased; `ex:` names slugified).
 */
const PREDICATES = [
  'rdf:type',
  ...['hasPart', 'isPartOf', 'identifier', 'title', 'description', 'abstract', 'created', 'modified', 'creator', 'publisher', 'subject', 'references'].map((p) => `dcterms:${p}`),
  ...['nextItem', 'previousItem', 'name', 'genre', 'about', 'mentions', 'knowsAbout', 'sameAs', 'location', 'temporalCoverage', 'participant', 'organizer', 'result', 'instrument', 'startDate', 'endDate'].map((p) => `schema:${p}`),
  ...['definition', 'prefLabel', 'altLabel', 'broader', 'narrower', 'related', 'exactMatch', 'closeMatch'].map((p) => `skos:${p}`),
  ...['supports', 'disagreesWith', 'usesDataFrom', 'providesDataFor', 'extends', 'discusses', 'confirms'].map((p) => `cito:${p}`),
].map((p) => p.toLowerCase());

export const ALLOWED_PREDICATES = new Set(PREDICATES);

const ALIASES: Record<string, string> = {
  'schema:description': 'dcterms:description',
  'schema:creator': 'dcterms:creator',
  'schema:awareness': 'schema:knowsabout',
  'schema:hasparent': 'dcterms:ispartof',
  'schema:hasmember': 'dcterms:haspart',
  'schema:recognizedas': 'skos:closematch',
  'schema:hasmemorysource': 'dcterms:references',
  'schema:haspart': 'dcterms:haspart',
  'schema:ispartof': 'dcterms:ispartof',
  'dcterms:has_part': 'dcterms:haspart',
  'dcterms:is_part_of': 'dcterms:ispartof',
};

/** The predicate as stored: trimmed, lowercased, aliases resolved. */
export function normalPredicate(value: unknown): string {
  const p = String(value ?? '').trim().toLowerCase();
  return ALIASES[p] ?? p;
}

/** `ex:John Smith` → `ex:john-smith` (lowercase ASCII, runs of anything else → `-`). */
export function slugEx(value: string): string {
  const rest = value.slice(3).normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return `ex:${rest}`;
}

/** A subject or object as stored: trimmed, lowercased, `ex:` names slugified; `literal` keeps an object as written. */
export function normalTerm(value: unknown, literal = false): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value.trim() : JSON.stringify(value);
  if (literal) return text;
  const lower = text.toLowerCase();
  return lower.startsWith('ex:') ? slugEx(lower) : lower;
}

export function isCustomPredicate(p: string): boolean {
  return p.startsWith('ex:');
}

/** `<s> —<p>→ <o>`, the statement of a packet. */
export function statementOf(t: { subject: string; predicate: string; object: string }): string {
  return `${t.subject} —${t.predicate}→ ${t.object}`;
}
