/**
 * The service's routes, by the library method each one calls. Every route but `stats` is a POST of one JSON object
 * (the method's arguments by name); the server and `akashic/client` both read this table.
 */
/** Version of the HTTP API (routes under /v1, the wire codec, the error body), as the OpenAPI document states it. */
export const API_VERSION = '1.0.0';

export const MEMORY_ROUTES = {
  appendTurn: '/v1/memory/append-turn',
  completeRequest: '/v1/memory/complete-request',
  endSession: '/v1/memory/end-session',
  endOtherSessions: '/v1/memory/end-other-sessions',
  activeTurns: '/v1/memory/active-turns',
  recall: '/v1/memory/recall',
  history: '/v1/memory/history',
  purge: '/v1/memory/purge',
} as const;

export const STORE_ROUTES = {
  put: '/v1/store/put',
  write: '/v1/store/write',
  get: '/v1/store/get',
  getMany: '/v1/store/get-many',
  /** Answers NDJSON: one listed entry per line, and a last line `{ "error": { code, message } }` if the scan failed. */
  list: '/v1/store/list',
  history: '/v1/store/history',
  update: '/v1/store/update',
  delete: '/v1/store/delete',
  purge: '/v1/store/purge',
  users: '/v1/store/users',
  sessions: '/v1/store/sessions',
  /** GET. */
  stats: '/v1/store/stats',
} as const;

export const OPS_ROUTES = {
  health: '/healthz',
  ready: '/readyz',
  metrics: '/metrics',
  openapi: '/openapi.json',
  mcp: '/mcp',
} as const;

/** The header that carries an API key (`Authorization: Bearer <key>` is accepted too). */
export const API_KEY_HEADER = 'x-api-key';
