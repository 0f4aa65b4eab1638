/**
 * The kernel side, run as a child process (see ../http/spawn-server.ts): the Keel kernel with the
 * inference plugin (owner of `/v1`) and the voice plugin on its defaults (speech: the local espeak
 * engine). The parent passes the admin token through the environment.
 */
import { serveAsChild } from '../http/servers/child-protocol.js';
import { bootVoiceKernel } from './voice-kernel.js';
import { CHILD_ENV } from './settings.js';

const token = process.env[CHILD_ENV.token];
if (!token) throw new Error(`${CHILD_ENV.token} is not set: this script runs as a child of the voice benchmark.`);

const kernel = await bootVoiceKernel(token);
serveAsChild(kernel.port, () => kernel.stop());
