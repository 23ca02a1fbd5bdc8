"""One simulated Salt 3006 minion: sign-in over REQ (asyncio, libzmq), then publishes over SUB and returns over REQ as
plain ZMTP connections (zmtp.py), driven by the process's epoll loop (swarm.py).

What a real minion does and this one does too: a fresh nonce per request, trust of the master's key on
first use (then its PKCS#1 signature checked on every clear reply), the session key's X9.31 proof, the
token echo, the publish serial check, matching the target itself, and a "salt/minion/<id>/start" event
carrying "tok". What it leaves out: pillar, grains, the file client, and every function but test.ping
and test.version.
"""
from __future__ import annotations

import asyncio
import collections
import fnmatch
import hashlib
import random
import re
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable

import zmq
import zmq.asyncio
from Cryptodome.PublicKey import RSA

import saltwire as w
from zmtp import ZmtpClient

VERSION = "3006.0"
REQUEST_TIMEOUT = 30.0  # seconds before a REQ socket is dropped and the request sent again
REQUEST_TRIES = 3


class SignInRefused(Exception):
    """The master rejected or denied the key, or is full (ret False / "full")."""


@dataclass
class MasterTrust:
    """Shared by the minions of one process: the master's public key, learned on first use (as
    minion_master.pub is), so that later sign-ins check the signature and send a token."""
    pub_pem: str | None = None
    pub: RSA.RsaKey | None = None


class PublishOpener:
    """Publishes as the minions of one process opened them. A master sends every minion the same bytes under the same
    session key, so the envelope, HMAC check, decryption and decoding are done once per process and publish, not once
    per minion (the load generator's own cost; the master cannot tell). Each minion still checks the serial."""

    def __init__(self) -> None:
        self._opened: dict[tuple[bytes, bytes], dict[str, Any] | None] = {}

    def open(self, crypticle: w.Crypticle, frame: bytes) -> dict[str, Any] | None:
        """The publish's load (shared: read, never changed); None for a frame that is not an AES publish. A load that
        fails the HMAC (under a key the master has since rotated) raises ProtocolError and is not remembered."""
        key = (crypticle.key, frame)
        if key not in self._opened:
            envelope = w.unpack_raw(frame)
            load = crypticle.open_publish(envelope[b"load"]) \
                if isinstance(envelope, dict) and envelope.get(b"enc") == b"aes" and b"load" in envelope else None
            if len(self._opened) >= 16:
                self._opened.clear()
            self._opened[key] = load
        return self._opened[key]


@dataclass
class Session:
    crypticle: w.Crypticle
    publish_port: int


@dataclass
class JobReport:
    """What this process saw of one job: when the publish arrived and when each return was acknowledged."""
    received: int = 0
    acknowledged: int = 0
    failed: int = 0
    first_received: float = 0.0
    last_acknowledged: float = 0.0
    reported: bool = False


@dataclass
class Minion:
    ident: str
    key: RSA.RsaKey
    host: str
    ret_port: int
    ctx: zmq.asyncio.Context
    trust: MasterTrust
    on_received: Callable[[str, float], None]
    on_returned: Callable[[str, float, bool], None]
    publishes: PublishOpener = field(default_factory=PublishOpener)  # shared by the minions of a process
    session: Session | None = None
    _req: zmq.asyncio.Socket | None = None
    _req_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _pub_pem: str = ""
    ctx_plain: zmq.Context | None = None
    sub: ZmtpClient | None = None
    req: ZmtpClient | None = None
    _outbox: collections.deque = field(default_factory=collections.deque)
    # the return in flight: jid, nonce, the request's bytes, when sent, tries so far
    _waiting: tuple[str, str, bytes, float, int] | None = None

    def __post_init__(self) -> None:
        self._pub_pem = self.key.publickey().export_key().decode("ascii")

    # ---- request channel -------------------------------------------------------------------

    def _new_req(self) -> zmq.asyncio.Socket:
        sock = self.ctx.socket(zmq.REQ)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.RECONNECT_IVL_MAX, 5000)
        sock.setsockopt(zmq.RCVTIMEO, int(REQUEST_TIMEOUT * 1000))  # an awaited recv raises zmq.Again after it
        sock.connect(f"tcp://{self.host}:{self.ret_port}")
        return sock

    async def _request(self, envelope: dict[str, Any]) -> bytes:
        """One REQ round trip; a REQ socket that timed out cannot send again, so it is replaced."""
        data = w.pack(envelope)
        async with self._req_lock:
            for attempt in range(REQUEST_TRIES):
                if self._req is None:
                    self._req = self._new_req()
                await self._req.send(data)
                try:
                    return await self._req.recv()
                except zmq.Again:
                    pass
                self._req.close()
                self._req = None
            raise TimeoutError(f"{self.ident}: no answer from the master after {REQUEST_TRIES} tries")

    async def _encrypted(self, load: dict[str, Any]) -> Any:
        """An AES request: the nonce goes inside the encrypted load and must come back in the reply."""
        assert self.session is not None
        nonce = uuid.uuid4().hex
        load["nonce"] = nonce
        reply = await self._request({"enc": "aes", "load": self.session.crypticle.dumps(load), "version": 2})
        sealed = w.unpack_raw(reply)
        if sealed == b"":  # Salt's own client takes an empty answer as None
            return None
        if not isinstance(sealed, bytes):
            raise w.ProtocolError(f"{self.ident}: master answered {sealed!r}")
        return self.session.crypticle.loads_reply(sealed, nonce)  # an error string ("bad load") fails the HMAC

    # ---- sign-in ---------------------------------------------------------------------------

    async def sign_in(self, pending_wait: float = 2.0) -> Session:
        """_auth until accepted: a pending key (ret True) waits and tries again, as acceptance_wait_time."""
        wait = pending_wait
        while True:
            load, token = self._auth_load()
            session = self._auth_answer(await self._request({"enc": "clear", "load": load, "version": 2}), load, token)
            if session is not None:
                return session
            await asyncio.sleep(wait * random.uniform(1.0, 1.5))
            wait = min(wait * 2, 30.0)

    def sign_in_blocking(self, pending_wait: float = 2.0) -> Session:
        """The same sign-in on a plain REQ socket of its own, for a minion whose jobs the epoll loop drives."""
        wait = pending_wait
        while True:
            load, token = self._auth_load()
            sock = self.ctx_plain.socket(zmq.REQ)
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.RCVTIMEO, int(REQUEST_TIMEOUT * 1000))
            sock.connect(f"tcp://{self.host}:{self.ret_port}")
            try:
                sock.send(w.pack({"enc": "clear", "load": load, "version": 2}))
                session = self._auth_answer(sock.recv(), load, token)
            except zmq.Again as err:
                raise TimeoutError(f"{self.ident}: no answer to the sign-in") from err
            finally:
                sock.close()
            if session is not None:
                return session
            time.sleep(wait * random.uniform(1.0, 1.5))
            wait = min(wait * 2, 30.0)

    def _auth_load(self) -> tuple[dict[str, Any], bytes]:
        token = w.new_key_string().encode("ascii")
        load: dict[str, Any] = {"cmd": "_auth", "id": self.ident, "nonce": uuid.uuid4().hex, "pub": self._pub_pem}
        if self.trust.pub is not None:
            load["token"] = w.oaep_encrypt(self.trust.pub, token)
        return load, token

    def _auth_answer(self, reply_bytes: bytes, load: dict[str, Any], token: bytes) -> Session | None:
        """The session of an accepted sign-in; None while the key is pending."""
        inner = self._signed_clear_load(w.unpack_envelope(reply_bytes))
        if inner.get("nonce") != load["nonce"]:
            raise w.ProtocolError(f"{self.ident}: sign-in reply nonce does not match")
        ret = inner.get("ret")
        if ret is True:
            return None
        if ret is False or ret == "full":
            raise SignInRefused(f"{self.ident}: master answered ret={ret!r}")
        self.session = self._accept(inner, token if "token" in load else None)
        return self.session

    def _signed_clear_load(self, reply: dict[str, Any]) -> dict[str, Any]:
        """A version-2 clear reply: {"enc": "clear", "load": msgpack(inner), "sig": PKCS1v15-SHA1(inner)}."""
        packed = reply.get("load")
        if not isinstance(packed, bytes):
            raise w.ProtocolError(f"{self.ident}: unsigned sign-in reply {reply!r}")
        inner = w.unpack_text(packed)
        if not isinstance(inner, dict):
            raise w.ProtocolError(f"{self.ident}: sign-in reply is not a map")
        if self.trust.pub is not None and not w.verify_pkcs1_sha1(self.trust.pub, packed, reply.get("sig", b"")):
            raise w.ProtocolError(f"{self.ident}: bad signature on the sign-in reply")
        return inner

    def _accept(self, inner: dict[str, Any], token: bytes | None) -> Session:
        pub_pem = inner.get("pub_key")
        if not isinstance(pub_pem, str):
            raise w.ProtocolError(f"{self.ident}: accepted without pub_key")
        if self.trust.pub_pem is None:  # trust on first use, like a minion without minion_master.pub
            self.trust.pub_pem, self.trust.pub = pub_pem, RSA.import_key(pub_pem)
        elif pub_pem.strip() != self.trust.pub_pem.strip():
            raise w.ProtocolError(f"{self.ident}: the master's key changed")
        aes = w.oaep_decrypt(self.key, _raw(inner["aes"]))
        # auth_mode 1: the session key alone; the X9.31 "sig" carries sha256-hex of exactly those bytes
        if w.x931_recover(self.trust.pub, _raw(inner["sig"])) != _sha256_hex(aes):
            raise w.ProtocolError(f"{self.ident}: session key proof does not verify")
        if token is not None and w.oaep_decrypt(self.key, _raw(inner.get("token", b""))) != token:
            raise w.ProtocolError(f"{self.ident}: token not echoed")
        return Session(w.Crypticle(aes), int(inner.get("publish_port", 4505)))

    # ---- after sign-in ---------------------------------------------------------------------

    async def fire_start_event(self) -> None:
        """salt/minion/<id>/start with "tok", the X9.31 signature of b"salt" the master checks on events."""
        await self._encrypted({
            "cmd": "_minion_event", "id": self.ident, "pretag": None, "tok": w.x931_sign(self.key, b"salt"),
            "tag": f"salt/minion/{self.ident}/start", "data": f"Minion {self.ident} started at {time.asctime()}",
        })

    # ---- jobs, driven by the process's epoll loop (swarm.py) -------------------------------

    def open_job_sockets(self, ctx: zmq.Context) -> None:
        """After sign-in: the minion's SUB and a REQ of its own as plain ZMTP connections (zmtp.py) that one epoll loop
        per process drives; `ctx` stays for a sign-in again after the master rotated its key."""
        assert self.session is not None
        self.ctx_plain = ctx
        if self._req is not None:  # the sign-in's asyncio socket
            self._req.close()
            self._req = None
        self.sub = ZmtpClient(self.host, self.session.publish_port, "SUB")
        self.req = ZmtpClient(self.host, self.ret_port, "REQ")

    def reconnect(self) -> None:
        """A connection the master closed is opened again; a return in flight on it is sent again at once (the
        master may have stored it: it stores a return once)."""
        assert self.session is not None
        if self.sub.closed:
            self.sub = ZmtpClient(self.host, self.session.publish_port, "SUB")
        if self.req.closed:
            self.req = ZmtpClient(self.host, self.ret_port, "REQ")
            if self._waiting is not None:
                jid, nonce, data, _, tries = self._waiting
                self._waiting = (jid, nonce, data, time.time(), tries)
                self.req.send(data)

    def on_publish(self, frame: bytes) -> None:
        """A publish: checked, decrypted, matched; a targeted job's return is sent (or queued behind the request
        the REQ socket still waits on)."""
        assert self.session is not None
        try:
            load = self.publishes.open(self.session.crypticle, frame)
        except w.ProtocolError:  # the master rotated its key: sign in again, then read it
            self.sign_in_blocking()
            load = self.publishes.open(self.session.crypticle, frame)
        if load is None or not all(k in load for k in ("tgt", "jid", "fun", "arg")) \
                or not self.session.crypticle.fresh(load) or not self._targeted(load):
            return
        jid = str(load["jid"])
        self.on_received(jid, time.time())
        ret, retcode = _run(load["fun"])
        self._outbox.append((jid, {"cmd": "_return", "id": self.ident, "jid": jid, "fun": load["fun"],
                                   "fun_args": load["arg"], "return": ret, "retcode": retcode,
                                   "success": retcode == 0}))
        if self._waiting is None:
            self._send_next()

    def on_reply(self, reply: bytes) -> None:
        """The master's answer to the return in flight: its nonce and HMAC checked. A reply with nothing in flight is
        dropped, as libzmq's REQ drops it."""
        assert self.session is not None
        if self._waiting is None:
            return
        jid, nonce, _, _, _ = self._waiting
        self._waiting = None
        ok = True
        try:
            sealed = w.unpack_raw(reply)
            if sealed != b"":  # Salt's own client takes an empty answer as None
                if not isinstance(sealed, bytes):
                    raise w.ProtocolError(f"{self.ident}: master answered {sealed!r}")
                self.session.crypticle.check_reply(sealed, nonce)  # an error string ("bad load") fails the HMAC
        except (w.ProtocolError, ValueError) as err:
            print(f"{self.ident}: return of {jid} failed: {err}", flush=True)
            ok = False
        self.on_returned(jid, time.time(), ok)
        self._send_next()

    def timed_out(self, now: float) -> bool:
        """Whether the return in flight has waited REQUEST_TIMEOUT for its answer."""
        return self._waiting is not None and now - self._waiting[3] >= REQUEST_TIMEOUT

    def retry_request(self, now: float) -> None:
        """Replaces the REQ socket (one that timed out cannot send again) and sends the return again, up to
        REQUEST_TRIES; after that the return counts as failed."""
        assert self._waiting is not None
        jid, nonce, data, _, tries = self._waiting
        self.req.close()
        self.req = ZmtpClient(self.host, self.ret_port, "REQ")
        if tries >= REQUEST_TRIES:
            print(f"{self.ident}: return of {jid} failed: no answer after {REQUEST_TRIES} tries", flush=True)
            self._waiting = None
            self.on_returned(jid, now, False)
            self._send_next()
        else:
            self._waiting = (jid, nonce, data, now, tries + 1)
            self.req.send(data)

    def _send_next(self) -> None:
        if not self._outbox:
            return
        jid, load = self._outbox.popleft()
        nonce = uuid.uuid4().hex
        load["nonce"] = nonce
        assert self.session is not None
        data = w.pack({"enc": "aes", "load": self.session.crypticle.dumps(load), "version": 2})
        self._waiting = (jid, nonce, data, time.time(), 1)
        self.req.send(data)

    def _targeted(self, load: dict[str, Any]) -> bool:
        """The minion decides itself whether a publish is for it (id-based types only)."""
        tgt, kind = load["tgt"], load.get("tgt_type", "glob")
        if kind == "glob":
            return isinstance(tgt, str) and fnmatch.fnmatch(self.ident, tgt)
        if kind == "list":
            names = tgt.split(",") if isinstance(tgt, str) else tgt
            return self.ident in names
        if kind == "pcre":
            return isinstance(tgt, str) and re.match(tgt, self.ident) is not None
        return False


def _run(fun: str) -> tuple[Any, int]:
    if fun == "test.ping":
        return True, 0
    if fun == "test.version":
        return VERSION, 0
    return f"'{fun}' is not available.", 254


def _raw(value: Any) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else value


def _sha256_hex(data: bytes) -> bytes:
    return hashlib.sha256(data).hexdigest().encode("ascii")
