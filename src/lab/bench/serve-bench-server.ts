/**
 * The server side of the service benchmark, run as its own process (so the client and the server do not share
 * an event loop, as they would not in production): starts the service on the database named by argv[2], reports
 * its URL to the parent over IPC, answers the parent's requests for its CPU time, and closes gracefully when the
 * parent disconnects.
 */
import { startService } from '../../service/index.js';

const db = process.argv[2];
if (db === undefined || process.send === undefined) throw new TypeError('usage: fork(serve-bench-server.js, [db]) with an IPC channel');
const service = await startService({ db, port: 0 });
process.send({ url: service.url });
// The benchmark asks for this process's CPU time before and after each measured run.
process.on('message', (m: { cpu?: boolean }) => {
  if (m.cpu === true) {
    const u = process.cpuUsage();
    process.send?.({ cpuMicros: u.user + u.system });
  }
});
process.once('disconnect', () => {
  void service.close().then(() => process.exit(0));
});
