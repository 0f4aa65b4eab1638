/** Both artifacts benchmarks, one after the other (search, then workspace streaming). */
import { benchArtifactSearch } from './bench-search.js';
import { benchWorkspaceStream } from './bench-stream.js';
import { artifactsSettingsFromEnv } from './settings.js';

export async function benchArtifacts(): Promise<void> {
  const settings = artifactsSettingsFromEnv();
  await benchArtifactSearch(settings);
  console.log('');
  await benchWorkspaceStream(settings);
}
