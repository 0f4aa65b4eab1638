/**
 * An error the origin raises as Python's `ValueError` (a bad schedule, an event without a name):
 * a run it fails reads `ValueError: <message>`, as the origin's runner writes it (RN §2 rule 5).
 */
export class ValueError extends Error {
  override name = 'ValueError';
}
