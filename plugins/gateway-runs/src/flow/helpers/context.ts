/** `make_context` (reference runtime-nodes §3.7): an LLM context object `{...context_extra, task, messages}`. */
import { pythonStr } from '../python-text.js';
import { isRecord, type Helpers } from './helper.js';

export const contextHelpers: Helpers = {
  make_context: (i) => {
    const task = i.task === null || i.task === undefined ? '' : pythonStr(i.task);
    const messages = Array.isArray(i.messages) ? [...i.messages] : i.messages === null || i.messages === undefined ? [] : [i.messages];
    return { context: { ...(isRecord(i.context_extra) ? i.context_extra : {}), task, messages } };
  },
};
