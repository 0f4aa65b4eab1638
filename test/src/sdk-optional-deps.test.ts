/** `optional(token)` in a plugin's deps: the provider's value when one is loaded (set up first), `undefined` when none is, never a boot error. */
import { expect } from 'chai';
import { definePlugin, optional, route } from '@keel/plugin-sdk';
import { createTestKernel } from '@keel/plugin-sdk/testing';
import { greeterPlugin, greeterToken, lifecycle } from './fixtures/dependency-plugins.js';

const politePlugin = definePlugin({
  id: 'polite',
  version: '0.1.0',
  sdk: '^1.0.0',
  deps: { greeter: optional(greeterToken) },
  setup: ({ deps }) => {
    lifecycle.push('setup polite');
    // Typed `{ greet } | undefined`: the plugin decides what to do without it.
    const text = () => (deps.greeter ? deps.greeter.greet('keel') : 'no greeter loaded');
    return { routes: [route({ method: 'GET', path: '/polite', auth: 'public', handler: () => ({ text: text() }) })] };
  },
});

describe('SDK optional dependencies', () => {
  it('resolves an optional dependency no plugin provides to undefined, and boots', async () => {
    const kernel = await createTestKernel({ plugins: [politePlugin] });
    try {
      expect((await kernel.inject({ url: '/polite' })).json()).to.deep.equal({ text: 'no greeter loaded' });
    } finally {
      await kernel.stop();
    }
  });

  it('resolves it to the provider when one is loaded, set up before the plugin that needs it', async () => {
    lifecycle.length = 0;
    const kernel = await createTestKernel({ plugins: [politePlugin, greeterPlugin] });
    try {
      expect((await kernel.inject({ url: '/polite' })).json()).to.deep.equal({ text: 'hello keel' });
    } finally {
      await kernel.stop();
    }
    expect(lifecycle.indexOf('setup greeter')).to.be.lessThan(lifecycle.indexOf('setup polite'));
  });
});
