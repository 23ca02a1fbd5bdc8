"""A ZMTP 3.0 client (RFC 23/ZMTP, NULL mechanism) for the swarm's job sockets: a SUB and a REQ on plain non-blocking
TCP sockets that the process's epoll loop drives.

Why not libzmq for these: through pyzmq a minion's job cost it a mailbox signal in each direction between the
application and libzmq's I/O thread, ZMQ_EVENTS polls and the I/O thread's own wake-ups, several system calls per
message on each side. Here an arrival costs one recv and a request one send, on the thread that handles them.
The sign-in keeps libzmq (pyzmq's asyncio REQ): it happens once per minion.

What it speaks: the 64-byte greeting (version 3.0, mechanism NULL, as client), the READY command with Socket-Type,
a SUB's subscription as a message starting with 1 (the ZMTP 3.0 form), a REQ's messages behind an empty delimiter
frame, and PONG to a peer's PING. What it leaves out: other mechanisms, Identity, reconnection (the owner makes a new
client), and any message over MAX_MESSAGE_BYTES (the connection is closed). The handshake blocks (up to the
timeout): the swarm opens its job connections before it reports ready.
"""
from __future__ import annotations

import socket
import struct
from collections import deque

MAX_MESSAGE_BYTES = 16 * 1024 * 1024
GREETING_BYTES = 64
_MORE, _LONG, _COMMAND = 1, 2, 4
_GREETING = (b"\xff" + b"\x00" * 8 + b"\x7f"  # signature
             + bytes([3, 0])                 # version 3.0: subscriptions as messages
             + b"NULL".ljust(20, b"\x00")    # mechanism
             + b"\x00"                       # as-server: no
             + b"\x00" * 31)                 # filler


class ZmtpError(Exception):
    """The peer broke the protocol or sent more than this client takes; the connection is closed."""


def frame(body: bytes, flags: int = 0) -> bytes:
    """One frame: flags, then a 1-byte size or (LONG) an 8-byte big-endian size, then the body."""
    if len(body) > 255:
        return bytes([flags | _LONG]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body


def command(name: bytes, data: bytes = b"") -> bytes:
    return frame(bytes([len(name)]) + name + data, _COMMAND)


def ready(socket_type: str) -> bytes:
    """READY with the one property a NULL-mechanism peer needs: Socket-Type (name, 4-byte value size, value)."""
    kind = socket_type.encode("ascii")
    return command(b"READY", bytes([11]) + b"Socket-Type" + struct.pack(">I", len(kind)) + kind)


class FrameReader:
    """Bytes in, whole messages (lists of frames) out; commands are handed back separately. Every size is checked
    against MAX_MESSAGE_BYTES before the bytes are waited for."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._greeted = False
        self._frames: list[bytes] = []
        self._message_bytes = 0

    def feed(self, data: bytes) -> tuple[list[list[bytes]], list[bytes]]:
        """The messages and the command bodies that `data` completes, in order of arrival within each list."""
        self._buffer += data
        messages: list[list[bytes]] = []
        commands: list[bytes] = []
        buf, pos, end = self._buffer, 0, len(self._buffer)
        if not self._greeted:
            if end < GREETING_BYTES:
                return messages, commands
            if buf[0] != 0xFF or buf[9] != 0x7F or buf[10] < 3:
                raise ZmtpError("not a ZMTP 3 greeting")
            if bytes(buf[12:32]).rstrip(b"\x00") != b"NULL":
                raise ZmtpError("the peer wants a security mechanism other than NULL")
            self._greeted, pos = True, GREETING_BYTES
        while end - pos >= 2:
            flags = buf[pos]
            if flags & _LONG:
                if end - pos < 9:
                    break
                size, head = struct.unpack_from(">Q", buf, pos + 1)[0], 9
            else:
                size, head = buf[pos + 1], 2
            if self._message_bytes + size > MAX_MESSAGE_BYTES:
                raise ZmtpError(f"a message of more than {MAX_MESSAGE_BYTES} bytes")
            if end - pos < head + size:
                break
            body = bytes(buf[pos + head:pos + head + size])
            pos += head + size
            if flags & _COMMAND:
                commands.append(body)
            elif flags & _MORE:
                self._frames.append(body)
                self._message_bytes += size
            else:
                self._frames.append(body)
                messages.append(self._frames)
                self._frames, self._message_bytes = [], 0
        del self._buffer[:pos]
        return messages, commands


class ZmtpClient:
    """One connection to a ZMTP peer. `socket_type` is "SUB" (subscribed to everything) or "REQ". After the fd is
    readable, `read()` returns the messages that arrived (a REQ's without its delimiter); `send()` queues a message
    in `pending` and `flush()` writes it; what the kernel does not take stays there."""

    def __init__(self, host: str, port: int, socket_type: str, timeout: float = 10.0) -> None:
        self.socket_type = socket_type
        self.closed = False
        self.pending = bytearray()
        self._reader = FrameReader()
        self.sock = socket.create_connection((host, port), timeout=timeout)
        try:
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._handshake()
        except BaseException:
            self.sock.close()
            raise
        self.sock.setblocking(False)
        if socket_type == "SUB":
            self.send(b"\x01")  # subscribe to every prefix
            self.flush()

    def _handshake(self) -> None:
        """Greeting and READY both ways, blocking (up to the socket's timeout): libzmq takes a message that arrives
        before it has sent its own READY for a second handshake command and drops the connection."""
        self.sock.sendall(_GREETING + ready(self.socket_type))
        while True:
            data = self.sock.recv(4096)
            if not data:
                raise ZmtpError("the peer closed the connection during the handshake")
            _, commands = self._reader.feed(data)  # a message now would be unasked: a SUB or REQ has sent nothing yet
            for body in commands:
                if body[:6] == b"\x05READY":
                    return
                if body[:6] == b"\x05ERROR":
                    raise ZmtpError(f"the peer refused the handshake: {body[7:]!r}")

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, body: bytes) -> None:
        """Queues a message (a REQ's behind an empty delimiter frame, as libzmq's REQ sends it); `flush()` writes what
        is queued. The swarm writes a wake-up's returns together after handling all it brought: see swarm.py."""
        self.pending += frame(b"", _MORE) + frame(body) if self.socket_type == "REQ" else frame(body)

    def read(self) -> list[bytes]:
        """The payload of each message that arrived: a SUB's last frame (a topic frame, if any, comes first), a REQ's
        frame after the delimiter. An empty list when nothing did; closes the client when the peer did."""
        payloads: list[bytes] = []
        while not self.closed:
            try:
                data = self.sock.recv(262144)
            except BlockingIOError:
                break
            except OSError:
                self.close()
                break
            if not data:
                self.close()
                break
            try:
                messages, commands = self._reader.feed(data)
            except ZmtpError:
                self.close()
                raise
            for body in commands:
                self._on_command(body)
            payloads += [p for p in map(self._payload, messages) if p is not None]
            if len(data) < 262144:
                break
        return payloads

    def _payload(self, message: list[bytes]) -> bytes | None:
        if self.socket_type == "REQ":  # a reply without the delimiter is not one (libzmq's REQ drops it too)
            return message[-1] if len(message) >= 2 and message[0] == b"" else None
        return message[-1]

    def flush(self) -> None:
        """Writes what is queued; what the kernel does not take stays in `pending` (the owner waits for writability)."""
        if not self.pending or self.closed:
            return
        try:
            sent = self.sock.send(self.pending)
        except BlockingIOError:
            return
        except OSError:
            self.close()
            return
        del self.pending[:sent]

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.sock.close()

    def _on_command(self, body: bytes) -> None:
        name = body[1:1 + body[0]] if body else b""
        if name == b"PING":  # PING: TTL (2 bytes), then a context the PONG echoes
            self.pending += command(b"PONG", body[1 + len(name) + 2:])
            self.flush()
        elif name == b"ERROR":
            self.close()
