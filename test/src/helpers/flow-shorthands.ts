/**
 * Shorthands for the flow interpreter's unit tests: a flow from nodes and `edges`-syntax links, its
 * start and end nodes, variable nodes, and the error a call throws.
 */
import { edges, node } from './flow-builder.js';
import type { VisualFlow } from './flow-driver.js';

/** A flow of `nodes` and `links` (`edges` syntax; a handle with a colon, `case:c1` or `then:0`, as `seq:then:0 -> a`). */
export const flow = (nodes: ReturnType<typeof node>[], links: string[], extra: Partial<VisualFlow> = {}): VisualFlow => {
  const wired = links.map((link) => {
    const [from, to] = link.split('->').map((x) => x.trim()) as [string, string];
    const [source, ...handle] = from.split(':');
    return handle.length > 1 ? { id: link, source: source!, sourceHandle: handle.join(':'), target: to, targetHandle: 'exec-in' } : edges(link)[0]!;
  });
  return { id: 'f', nodes, edges: wired, ...extra } as VisualFlow;
};
export const start = (outputs: string[] = [], data: Record<string, unknown> = {}) => node({ id: 'start', type: 'on_flow_start', outputs, data });
export const end = (inputs: string[]) => node({ id: 'end', type: 'on_flow_end', inputs });
export const getVar = (id: string, name: string) => node({ id, type: 'get_var', exec: false, inputs: ['name'], outputs: ['value'], data: { pinDefaults: { name } } });
export const setVar = (id: string, name: string, value?: unknown) => node({ id, type: 'set_var', inputs: ['name', 'value'], data: { pinDefaults: { name, ...(value === undefined ? {} : { value }) } } });
export const throwsFrom = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
};
