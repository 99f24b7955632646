/** Global setup of the fast tier: refuses a dist/ older than a source the worker threads run from it. */
export { setupWorkers as default } from './dist-freshness.js';
