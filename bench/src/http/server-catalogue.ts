/** The three servers compared, each a script run in its own child process. */
export const SERVER_IDS = ['raw', 'koa', 'kernel'] as const;
export type ServerId = (typeof SERVER_IDS)[number];

export interface ServerSpec {
  id: ServerId;
  label: string;
  script: URL;
}

export const SERVERS: Record<ServerId, ServerSpec> = {
  raw: { id: 'raw', label: 'node:http', script: new URL('./servers/raw-server.js', import.meta.url) },
  koa: { id: 'koa', label: 'koa + @koa/router', script: new URL('./servers/koa-server.js', import.meta.url) },
  kernel: { id: 'kernel', label: 'keel kernel', script: new URL('./servers/kernel-server.js', import.meta.url) },
};
