/** A `.flow` bundle that cannot be read; the message names what to fix. */
export class BundleError extends Error {}
