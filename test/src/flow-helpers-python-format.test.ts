/**
 * Unit tests of the exact-text renderers behind the helper nodes: Python `str.format` with format
 * specs (`format`, RN §3.3) against texts and errors produced by CPython 3.11 for the same template
 * and values. (The nodes themselves are run through HTTP in flow-helpers-nodes / flow-helpers-text.)
 */
import { expect } from 'chai';
import { pythonFormat } from '../../plugins/gateway-runs/dist/flow/helpers/python-format.js';

/** [template, values, 'ok' or the Python exception type, the text or str(exception)] */
const CPYTHON: Array<[string, Record<string, unknown>, string, string]> = [
  ["Hello {name}, {n:.2f} {{lit}}", {"name": "A", "n": 3.14159}, "ok", "Hello A, 3.14 {lit}"],
  ["{a[x]} {a!r:>8} {b:{w}} {c}", {"a": {"x": "é"}, "b": 3, "w": 4, "c": [1, null]}, "ok", "é {'x': 'é'}    3 [1, None]"],
  ["{x:,.2f}|{y:08,d}|{z:=+8}|{s:*^7}|{p:10.2%}|{h:#x}|{e:.3e}|{g:g}|{g2:g}|{f:.0f}|{f2:.0f}", {"x": 1234567.891, "y": 42, "z": -42, "s": "ab", "p": 0.5, "h": 255, "e": 0.0001234, "g": 1e-05, "g2": 123456789.5, "f": 2.5, "f2": 3.5}, "ok", "1,234,567.89|0,000,042|-     42|**ab***|    50.00%|0xff|1.234e-04|1e-05|1.23457e+08|2|4"],
  ["{t} {t:>5} {n} {d} {l} {fl}", {"t": true, "n": null, "d": {"k": "v", "q": [true, false]}, "l": [], "fl": 1.5}, "ok", "True     1 None {'k': 'v', 'q': [True, False]} [] 1.5"],
  ["{v:.3} {v2:.3} {v3:.3} {i:b} {i:o} {i:X} {i:c} {neg:.1f} {big:e}", {"v": 1.5, "v2": 1234.5, "v3": 0.5, "i": 77, "neg": -0.04, "big": 12345.678}, "ok", "1.5 1.23e+03 0.5 1001101 115 4D M -0.0 1.234568e+04"],
  ["{a:<6}|{a:>6}|{a:^6}|{a:06}|{b:.1%}|{c:_}|{c:,}|{s:.2}", {"a": -3, "b": 0.12345, "c": 1234567, "s": "hello"}, "ok", "-3    |    -3|  -3  |-00003|12.3%|1_234_567|1,234,567|he"],
  ["{a:g} {b:g} {c:G} {d:.2g} {e:#g} {f:n} {h:n}", {"a": 100000, "b": 1000000.5, "c": 1e-10, "d": 0.000123456, "e": 1.5, "f": 3.25, "h": 12}, "ok", "100000 1e+06 1E-10 0.00012 1.50000 3.25 12"],
  ["{x:+.2f} {x: .2f} {y:+d} {z:z.1f}", {"x": 2.345, "y": 5, "z": -0.01}, "ok", "+2.35  2.35 +5 0.0"],
  ["{missing}", {"a": 1}, "KeyError", "'missing'"],
  ["{0}", {"a": 1}, "IndexError", "Replacement index 0 out of range for positional args tuple"],
  ["{u.x}", {"u": {}}, "AttributeError", "'dict' object has no attribute 'x'"],
  ["{u[0]}", {"u": {}}, "KeyError", "0"],
  ["{u[3]}", {"u": [1]}, "IndexError", "list index out of range"],
  ["{u[a]}", {"u": [1]}, "TypeError", "list indices must be integers or slices, not str"],
  ["a } b", {}, "ValueError", "Single '}' encountered in format string"],
  ["a { b", {}, "ValueError", "expected '}' before end of string"],
  ["{a!x}", {"a": 1}, "ValueError", "Unknown conversion specifier x"],
  ["{a:d}", {"a": "s"}, "ValueError", "Unknown format code 'd' for object of type 'str'"],
  ["{a:>3}", {"a": null}, "TypeError", "unsupported format string passed to NoneType.__format__"],
  ["{a:.2d}", {"a": 5}, "ValueError", "Precision not allowed in integer format specifier"],
  ["{a:+}", {"a": "s"}, "ValueError", "Sign not allowed in string format specifier"],
  ["{u[0][k]}/{u[1]}", {"u": [{"k": "deep"}, "x"]}, "ok", "deep/x"],
  ["{a:.0e}|{b:.1e}|{c:.4g}|{d:.1g}|{e:f}|{f:.105f}|{g:.0%}|{h:.2f}|{i:.1f}|{j:.3g}", {"a": 2.5, "b": 0.125, "c": 1234.5, "d": 2.5, "e": 1e+21, "f": 1.5, "g": 0.5, "h": 0.125, "i": 0.25, "j": 0.0001235}, "ok", "2e+00|1.2e-01|1234|2|1000000000000000000000.000000|1.500000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000|50%|0.12|0.2|0.000123"],
  ["{a:.120e}|{b:.1000000g}", {"a": 1.5, "b": 0.1}, "ok", "1.500000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000e+00|0.1000000000000000055511151231257827021181583404541015625"],
  ["{a:e}|{b:E}|{c:.2e}|{d:g}|{e:.0f}|{f:.0f}|{g:.1f}", {"a": 0, "b": 12345.6789, "c": 9.995, "d": 1e+16, "e": 0.5, "f": 1.5, "g": 0.05}, "ok", "0.000000e+00|1.234568E+04|9.99e+00|1e+16|0|2|0.1"],
];

describe('python str.format (format node, RN §3.3)', () => {
  for (const [template, values, kind, text] of CPYTHON) {
    it(`${JSON.stringify(template)} → ${kind === 'ok' ? JSON.stringify(text) : `${kind}: ${text}`}`, () => {
      if (kind === 'ok') {
        expect(pythonFormat(template, values)).to.equal(text);
        return;
      }
      let error: Error | undefined;
      try {
        pythonFormat(template, values);
      } catch (err) {
        error = err as Error;
      }
      expect(error, 'an error').to.not.equal(undefined);
      expect([error!.name, error!.message]).to.deep.equal([kind, text]);
    });
  }
});
