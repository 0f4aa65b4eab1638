/** `format` (reference runtime-nodes §3.3): `template.format(**values)` with Python semantics. */
import { pythonStr } from '../python-text.js';
import { isRecord, type Helpers } from './helper.js';
import { pythonFormat } from './python-format.js';

export const formatHelpers: Helpers = {
  format: (i) => {
    const template = i.template === undefined ? '' : pythonStr(i.template);
    // Values that are not an object (missing, a list, ...) leave the template as it is.
    return isRecord(i.values) ? pythonFormat(template, i.values) : template;
  },
};
