/**
 * Unit tests of the shared text and flag rules other node types import (reference runtime-nodes §2
 * rules 4 and 6): Python `str()`/`repr()`/`json.dumps` rendering and boolean coercion. Expected texts
 * were produced by CPython 3.11.
 */
import { expect } from 'chai';
import { coerceBool, pythonTruthy } from '../../plugins/gateway-runs/dist/flow/coerce.js';
import { pythonFloatRepr, pythonJsonDumps, pythonRepr, pythonStr } from '../../plugins/gateway-runs/dist/flow/python-text.js';

describe('python text (rule 6): str() and repr() of JSON values', () => {
  it('writes None, True/False, ints and floats as Python does', () => {
    expect([null, undefined, true, false, 0, 42, -7].map(pythonStr)).to.deep.equal(['None', 'None', 'True', 'False', '0', '42', '-7']);
    expect([1.5, 1e16 + 0.5, 1.5e-7, 0.0001, 1e-5, 123456.789, -0.25].map(pythonFloatRepr)).to.deep.equal(['1.5', '1e+16', '1.5e-07', '0.0001', '1e-05', '123456.789', '-0.25']);
    expect([NaN, Infinity, -Infinity].map(pythonFloatRepr)).to.deep.equal(['nan', 'inf', '-inf']);
    // Beyond the safe integers a number can only have come from a float.
    expect(pythonStr(1e16)).to.equal('1e+16');
  });

  it("writes dicts and lists in repr with single quotes, escaping what Python escapes", () => {
    const value = { a: 1, b: [true, null, 1.5, "it's"], c: 'x\n\x01é\u200b' };
    expect(pythonStr(value)).to.equal(`{'a': 1, 'b': [True, None, 1.5, "it's"], 'c': 'x\\n\\x01é\\u200b'}`);
    expect(pythonRepr('a"b')).to.equal(`'a"b'`);
    expect(pythonRepr(`a'b"c`)).to.equal(`'a\\'b"c'`);
    expect(pythonStr([])).to.equal('[]');
    expect(pythonStr({})).to.equal('{}');
    expect(pythonStr({ value: 'hi' })).to.equal("{'value': 'hi'}");
    // str() of a string is the string itself; repr quotes it.
    expect(pythonStr('plain')).to.equal('plain');
    expect(pythonRepr('plain')).to.equal("'plain'");
  });

  it('json.dumps: default separators, sort_keys, ensure_ascii and indent as Python', () => {
    expect(pythonJsonDumps({ b: 1, a: 'é', c: [1, {}] }, { sortKeys: true, ensureAscii: false })).to.equal('{"a": "é", "b": 1, "c": [1, {}]}');
    expect(pythonJsonDumps({ a: 'é' })).to.equal('{"a": "\\u00e9"}');
    expect(pythonJsonDumps({ b: 1, a: 'é', c: [1, {}, []] }, { indent: 2, ensureAscii: false })).to.equal('{\n  "b": 1,\n  "a": "é",\n  "c": [\n    1,\n    {},\n    []\n  ]\n}');
    expect(pythonJsonDumps({ b: [1, 2.5], a: null }, { sortKeys: true, separators: [',', ':'] })).to.equal('{"a":null,"b":[1,2.5]}');
  });
});

describe('boolean coercion (rule 4)', () => {
  it('maps null, booleans, numbers and the flag words; any other string is false', () => {
    expect([null, undefined, true, false, 0, 1, -2, 0.5].map(coerceBool)).to.deep.equal([false, false, true, false, false, true, true, true]);
    expect(['true', ' TRUE ', '1', 'yes', 'On'].map(coerceBool)).to.deep.equal([true, true, true, true, true]);
    expect(['false', '0', 'no', 'off', '', '  ', 'maybe', 'y', 'enabled'].map(coerceBool)).to.deep.equal([false, false, false, false, false, false, false, false, false]);
  });

  it('uses Python truthiness for lists and objects', () => {
    expect([[], {}, [0], { a: 1 }].map(coerceBool)).to.deep.equal([false, false, true, true]);
    expect(['', 'x', 0, [], {}].map(pythonTruthy)).to.deep.equal([false, true, false, false, false]);
  });
});
