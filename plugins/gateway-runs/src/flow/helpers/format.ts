/** `format` (reference runtime-nodes §3.3): `template.format(**values)` with Python semantics. */
import { pythonStr } from '../python-text.js';
import { isRecord, type Helpers } from './helper.js';
import { pythonFormat } from './python-format.js';

/** `maxWidth`: the widest field it pads (the run's `limits.maxVarsBytes`: a wider text could not be kept anyway). */
export function formatHelpers(maxWidth: number): Helpers {
  return {
    format: (i) => {
      const template = i.template === undefined ? '' : pythonStr(i.template);
      // Values that are not an object (missing, a list, ...) leave the template as it is.
      return isRecord(i.values) ? pythonFormat(template, i.values, maxWidth) : template;
    },
  };
}
