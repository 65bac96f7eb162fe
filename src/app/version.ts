/**
 * The service version, package.json's (test/repository/release.test.ts holds the two together):
 * logged at start, printed by `--help`, named in the OpenAPI document's description.
 */
export const VERSION = "1.2.0";
