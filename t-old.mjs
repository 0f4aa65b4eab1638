// What the old `keel --help` imported before printing: every command module up front.
await Promise.all(['serve-command','runner-command','token-command','plugins-command','parse-flags'].map((m)=>import(`./kernel/dist/cli/${m}.js`)));
await import('./kernel/dist/plugins/load-plugins.js');
process.stdout.write('help\n');
