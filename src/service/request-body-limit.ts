/**
 * The body-size limit of the service's routes. A request that declares its length (`content-length`, no
 * `transfer-encoding`) is checked against the header alone, so its body is then read once, straight from the
 * socket, by the route's validator; only a request of unknown length is read through Hono's own limit, which counts
 * the bytes as they arrive.
 *
 * Why not Hono's limit for every request: it reads `c.req.raw.body`, which makes the Node adapter build a full
 * web `Request` (a `ReadableStream` over the socket and an abort signal) for each request, and the validator then
 * reads the body through that stream: about 0.1 ms per request on loopback for nothing a JSON route needs.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/**
 * A middleware that refuses a body over `maxBytes` with `onOver` (before reading it when its length is declared).
 * A declared length that is not a decimal number is left to Node's HTTP parser, which refuses it before any route.
 */
export function requestBodyLimit(maxBytes: number, onOver: (c: Context) => Response): MiddlewareHandler {
  const counting = bodyLimit({ maxSize: maxBytes, onError: onOver });
  return async (c, next) => {
    const declared = c.req.header('content-length');
    if (declared === undefined || c.req.header('transfer-encoding') !== undefined) return counting(c, next);
    if (Number(declared) > maxBytes) return onOver(c);
    await next();
    return undefined;
  };
}
