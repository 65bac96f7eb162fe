/** The service version, as in package.json and the OpenAPI document. */
export const VERSION = "1.1.0";
