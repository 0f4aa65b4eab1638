/**
 * A complete WebSocket text frame (RFC 6455 §5.2) as the server sends it: FIN, opcode 1, no mask,
 * the payload length in 7, 16 or 64 bits. Encoded once and written as is to every socket that gets
 * the same frame, instead of one `ws.send` (a header, a cork, a two-part write) per socket.
 * No extension is negotiated on the hub's sockets (the kernel's socket host turns permessage-deflate
 * off), so an uncompressed frame is what `ws` itself would send.
 */
export function encodeTextFrame(payload: Buffer): Buffer {
  const n = payload.length;
  const headerBytes = n < 126 ? 2 : n < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerBytes + n);
  frame[0] = 0x81; // FIN + text
  if (n < 126) {
    frame[1] = n;
  } else if (n < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(n), 2);
  }
  payload.copy(frame, headerBytes);
  return frame;
}
