/** package.json's version (test/repository/release.test.ts holds the two together). */
export const VERSION = "1.2.0";
