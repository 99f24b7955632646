/**
 * Graceful shutdown on SIGTERM and SIGINT: the first signal closes the service (stop accepting, drain, close); a
 * second one while that runs exits at once (an operator who presses Ctrl-C twice means it).
 */
export function closeOnSignals(close: () => Promise<void>, onClosed: (err: unknown) => void): () => void {
  let closing = false;
  const handler = (signal: NodeJS.Signals): void => {
    if (closing) {
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    closing = true;
    close().then(
      () => onClosed(null),
      (err: unknown) => onClosed(err),
    );
  };
  process.on('SIGTERM', handler);
  process.on('SIGINT', handler);
  return () => {
    process.off('SIGTERM', handler);
    process.off('SIGINT', handler);
  };
}
