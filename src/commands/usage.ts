/** The `--help` text. */
export const USAGE = `animal-store — the Animal Store API (v1)

Usage: animal-store [command]

Commands:
  serve         Start the HTTP service (default)
  healthcheck   Exit 0 when GET /healthz on HOST:PORT answers 200 (127.0.0.1 when HOST is
                0.0.0.0 or ::; for container health checks)
  verify        Check the data file in DATA_DIR: counts per status, damage; changes nothing
  openapi       Print the OpenAPI 3.1 document (as served at BASE_PATH/openapi.json) and exit
  import        Copy the pets of DATA_DIR's file into the empty database of DATABASE_URL
  backup PATH   Write a consistent copy of the pets to PATH (- for stdout) while the service
                runs; with DATABASE_URL, export the database in the same format
  restore PATH  Verify a backup (- for stdin) and install it in an empty DATA_DIR
  --help        Show this text

Settings (environment variables):
  PORT            listen port (default 8080; 0 picks a free port)
  HOST            listen address (default 0.0.0.0)
  DATA_DIR        data directory (default ./data)
  API_KEYS        comma-separated accepted API keys
  API_KEYS_FILE   file with one key (or sha256:<hex> digest) per line
  BASE_PATH       version prefix of every API path (default /v1)
  MAX_BODY_BYTES  largest accepted request body (default 65536)
  PUBLIC_URL      origin that makes Link and Location URLs absolute
  CORS_ORIGINS    comma-separated allowed origins, or * (default: off)
  RATE_LIMIT      requests per minute per API key (default 0: off)
  METRICS         on | off: serve GET /metrics, Prometheus text format, key needed (default off)
  CACHE_BYTES     memory for cached responses (default 67108864 = 64 MiB; 0: off)
  SHUTDOWN_TIMEOUT  seconds requests in flight get after SIGTERM before connections are closed
                  (default 10; 0 to 300)
  TLS_CERT_FILE   PEM certificate chain: with TLS_KEY_FILE, PORT speaks HTTPS only
  TLS_KEY_FILE    PEM private key of TLS_CERT_FILE
  DATABASE_URL    postgres://… : keep pets in PostgreSQL instead of DATA_DIR's file
  DATABASE_POOL_SIZE             most connections per instance (default 10)
  DATABASE_STATEMENT_TIMEOUT_MS  server-side limit per statement (default 5000; 0 = none)
  DATABASE_SSL    disable | prefer | require | verify-full (default: the URL's sslmode)
  DATABASE_SSL_CA_FILE           PEM certificate authorities for verify-full

Exit codes: 0 ok; 1 failure (data directory in use, damaged data file, database refused or
missing); 2 bad setting or usage.
`;
