/**
 * The inference plugin's service token, declared here by its name (the SDK matches tokens by name),
 * so the hub loads without `@keel/plugin-inference` installed: the package is an optional peer, and
 * only its types are imported. A host that wants semantic search installs and loads that plugin.
 * The semantic search tests fail if this stops being the token the inference plugin provides.
 */
import type { InferenceService } from '@keel/plugin-inference';
import { token } from '@keel/plugin-sdk';

export const inferenceServiceToken = token<InferenceService>('inference.service');
