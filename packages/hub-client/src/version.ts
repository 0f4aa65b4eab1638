// Identity of this client on the wire.

/** Package version, also the version half of the client header. */
export const CLIENT_VERSION = '0.1.0';

/** The client half of the client header. */
export const CLIENT_NAME = 'keel-hub-client';

/** Name of the header every request carries (seed §2.2; the real hub's own client says X-Agora-Client). */
export const CLIENT_HEADER = 'X-Hub-Client';

/** Default value of the client header: `<client>/<version>`. */
export const CLIENT_ID = `${CLIENT_NAME}/${CLIENT_VERSION}`;
