/** The SDK version plugins are checked against (`sdk` semver range in `definePlugin`). */
export const SDK_VERSION = '1.0.0';
