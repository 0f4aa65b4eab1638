/**
 * An upload route refused before it read its whole body (busy, the deadline, a bad field) closes the
 * connection with its answer: otherwise the server would go on reading (and dropping) whatever the
 * client still sends, to reuse the socket, for as long as the client keeps sending.
 */
import { isHttpError } from '@keel/plugin-sdk';

/** Runs `fn`; an HttpError it throws while `bodyRead()` is still false closes the connection. */
export async function refuseUnread<T>(fn: () => Promise<T>, bodyRead: () => boolean): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isHttpError(err) && !bodyRead()) err.headers.connection = 'close';
    throw err;
  }
}
