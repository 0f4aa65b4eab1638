/** A mistake on the command line: printed with a pointer to --help, exit code 2 (the SDK's, so plugin commands share it). */
export { UsageError, isUsageError } from '@keel/plugin-sdk';
