/** Write-error injection for tests: the crash test's injector (tools/crash-test/write-faults.ts). */
export { injectWriteFaults, type WriteFaults } from '../../tools/crash-test/write-faults.js';
