// HTTP upgrade requests. Nothing on this server speaks WebSocket: Codex tries
// Responses over WebSocket first (when its provider allows it) and falls back
// to HTTP at once on a 426, where a dropped socket or a 404 costs it seconds
// of retries. Other paths are dropped, as Node does with no upgrade listener.
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";

/** Paths whose WebSocket clients are told to use HTTP. */
const HTTP_ONLY = /^\/v1\/responses\/?(?:\?|$)/;

const BODY = JSON.stringify({
  error: { message: "WebSocket is not supported here: send the request with HTTP POST /v1/responses.", type: "invalid_request_error", param: null, code: "websocket_not_supported" },
});

/** The raw 426 (the socket is not fastify's once upgrading). */
export function upgradeRequired(requestId: string): string {
  return (
    "HTTP/1.1 426 Upgrade Required\r\n" +
    "connection: close\r\n" +
    "content-type: application/json\r\n" +
    `content-length: ${Buffer.byteLength(BODY)}\r\n` +
    `request-id: ${requestId}\r\n` +
    `x-request-id: ${requestId}\r\n` +
    "\r\n" +
    BODY
  );
}

/** `idOf` names the request as every other answer does (the client's request id, or a new one). */
export function answerUpgrades(server: Server, idOf: (req: IncomingMessage) => string): void {
  server.on("upgrade", (req: IncomingMessage, socket: Duplex) => {
    socket.on("error", () => undefined);
    if (!HTTP_ONLY.test(req.url ?? "")) {
      // Left to another upgrade listener if one was added; otherwise what Node does without any.
      if (server.listenerCount("upgrade") === 1) socket.destroy();
      return;
    }
    socket.end(upgradeRequired(idOf(req)));
  });
}
