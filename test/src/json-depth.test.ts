/** The SDK's JSON depth measure: brackets inside strings (escaped quotes included) do not count. */
import { expect } from 'chai';
import { textExceedsJsonDepth, jsonDepth } from '@keel/plugin-sdk';

describe('jsonDepth', () => {
  it('counts nested arrays and objects, not brackets inside strings', () => {
    expect(jsonDepth('42')).to.equal(0);
    expect(jsonDepth('"[[[{{{"')).to.equal(0);
    expect(jsonDepth('{"a":[1,{"b":[]}],"c":{}}')).to.equal(4);
    expect(jsonDepth('{"a":"x\\"[[[[","b":["\\\\",[]]}')).to.equal(3);
  });

  it('stops counting past the limit, and agrees with JSON.parse on what is deep', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(jsonDepth(deep, 64)).to.equal(65);
    expect(textExceedsJsonDepth(deep, 64)).to.equal(true);
    const ok = JSON.stringify({ a: [[[{ b: 'x]]]]' }]]] });
    expect(textExceedsJsonDepth(ok, 5)).to.equal(false);
    expect(textExceedsJsonDepth(ok, 4)).to.equal(true);
  });
});
