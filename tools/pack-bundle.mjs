#!/usr/bin/env node
// Packs a bundle source folder (manifest.json + flows/*.json) into a .flow zip, the way the
// origin's packer lays it out: manifest first, then one flows/<id>.json per flow, sorted by id.
// Usage: node tools/pack-bundle.mjs <source folder> <output.flow>
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';

const [source, output] = process.argv.slice(2);
if (!source || !output) {
  console.error('usage: node tools/pack-bundle.mjs <source folder> <output.flow>');
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(path.join(source, 'manifest.json'), 'utf8'));
const files = { 'manifest.json': new TextEncoder().encode(JSON.stringify(manifest, null, 2)) };
for (const [, rel] of Object.entries(manifest.flows).sort(([a], [b]) => a.localeCompare(b))) {
  files[rel] = readFileSync(path.join(source, rel));
}
// A fixed timestamp keeps the archive byte-for-byte reproducible.
writeFileSync(output, zipSync(files, { level: 9, mtime: new Date('2026-01-01T00:00:00Z') }));
console.log(`wrote ${output}`);
