/** The memory service: `startService` (what `akashic serve` runs), its API keys, and the route table. */
export { startService, isLoopback, type ServiceOptions, type RunningService } from './memory-service.js';
export { ApiKeys, hashApiKey, type ApiKeyEntry, type Tenant } from './api-keys.js';
export { HTTP_STATUS } from './error-status.js';
export { storeLocation, DEFAULT_HOST, DEFAULT_PORT, DEFAULT_MAX_BODY_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './service-settings.js';
export { closeOnSignals } from './shutdown-signals.js';
export { loadApiKeys, API_KEYS_ENV } from './service-keys.js';
