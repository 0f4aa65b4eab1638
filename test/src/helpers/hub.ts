/** Helpers for hub tests: a kernel with the hub plugin (optional plugin config), seats, rooms and JSON calls through `inject`. */
import { createTestKernel, type TestKernel } from '@keel/plugin-sdk/testing';
import { hubPlugin } from '@keel/plugin-hub';

export interface HubCall {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
  headers: Record<string, unknown>;
  raw: Buffer;
}

export interface SeatOptions {
  operator?: boolean;
  about?: string;
  mission?: string;
}

export interface HubHarness {
  kernel: TestKernel;
  /** JSON (or a Buffer/string sent as is) through the full middleware stack, under `/hub`, as an identified client. */
  call(method: string, url: string, token?: string, payload?: unknown, headers?: Record<string, string>): Promise<HubCall>;
  /** Registers a seat with the admin key; returns its key. */
  seat(id: string, options?: SeatOptions | boolean): Promise<string>;
  /** Registers seats in the order given (those named in `operators` with the operator flag); returns their keys by id. */
  seats<Id extends string>(ids: readonly Id[], operators?: readonly Id[]): Promise<Record<Id, string>>;
  /** Creates a room owned by `owner`'s seat (public unless told) and joins the given seats. */
  room(name: string, owner: string, members?: string[], isPrivate?: boolean): Promise<void>;
  stop(): Promise<void>;
}

export async function startHub(config: Record<string, unknown> = {}, options: { dataDir?: string } = {}): Promise<HubHarness> {
  const kernel = await createTestKernel({ plugins: [{ plugin: hubPlugin, config }], dataDir: options.dataDir });
  const call = async (method: string, url: string, token?: string, payload?: unknown, headers: Record<string, string> = {}): Promise<HubCall> => {
    const res = await kernel.inject({ method, url: `/hub${url}`, token, payload, headers: { 'x-hub-client': 'keel-tests/1', ...headers } });
    let body: unknown = res.body;
    try {
      body = JSON.parse(res.body);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.statusCode, body, headers: res.headers, raw: res.rawPayload };
  };
  const expectOk = (what: string, res: HubCall) => {
    if (res.status !== 200) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  };
  const seat = async (id: string, options: SeatOptions | boolean = {}) => {
    const res = await call('POST', '/agents', kernel.adminToken, { id, ...(typeof options === 'boolean' ? { operator: options } : options) });
    expectOk(`registering ${id}`, res);
    return res.body.api_key as string;
  };
  return {
    kernel,
    call,
    seat,
    seats: async <Id extends string>(ids: readonly Id[], operators: readonly Id[] = []) => {
      const keys = {} as Record<Id, string>;
      for (const id of ids) keys[id] = await seat(id, operators.includes(id) ? { operator: true } : {});
      return keys;
    },
    room: async (name, owner, members = [], isPrivate = false) => {
      expectOk(`creating ${name}`, await call('POST', '/channels', owner, { name, private: isPrivate }));
      for (const m of members) expectOk(`joining ${name}`, await call('POST', `/channels/${name}/join`, m, {}));
    },
    stop: () => kernel.stop(),
  };
}
