/** The SDK version plugins' `sdk` ranges are checked against (semver). */
export const SDK_VERSION = "1.5.0";
