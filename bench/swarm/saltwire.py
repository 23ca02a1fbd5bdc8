"""Salt 3006's wire rules for a minion, written from the protocol description (no salt imports).

Serialization: msgpack "old spec" (str and bytes both packed as raw; receivers unpack raw and turn
UTF-8 values into str). Crypto: RSA-2048 keys, OAEP-SHA1 for the session key and token, PKCS#1 v1.5
SHA-1 signatures on the master's clear replies, an X9.31 private-key "signature" on the session key,
and the "crypticle": AES-192-CBC + HMAC-SHA256 over iv||ciphertext, plaintext prefixed b"pickle::".
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
from typing import Any

import msgpack
from Cryptodome.Cipher import AES, PKCS1_OAEP
from Cryptodome.Hash import SHA1
from Cryptodome.PublicKey import RSA
from Cryptodome.Signature import pkcs1_15

PICKLE_PREFIX = b"pickle::"
AES_KEY_BYTES = 24   # AES-192
HMAC_KEY_BYTES = 32  # HMAC-SHA256
NONCE_CHARS = 32     # uuid4().hex


class ProtocolError(Exception):
    """A message that breaks the protocol (bad HMAC, wrong nonce, bad signature, unexpected shape)."""


def pack(obj: Any) -> bytes:
    """Salt packs with use_bin_type=False: bytes and str both become msgpack raw, never bin or str8."""
    return msgpack.packb(obj, use_bin_type=False)


def unpack_raw(data: bytes) -> Any:
    """A message as packed, every raw left as bytes."""
    return msgpack.unpackb(data, raw=True)


def unpack_envelope(data: bytes) -> dict[str, Any]:
    """The outer map of a request reply or publish: keys as str, values left raw (some are ciphertext)."""
    outer = msgpack.unpackb(data, raw=True)
    if not isinstance(outer, dict):
        raise ProtocolError(f"expected a map, got {type(outer).__name__}")
    return {_text(k): v for k, v in outer.items()}


def unpack_text(data: bytes) -> Any:
    """A payload whose raw values are text where they decode as UTF-8 (Salt's decode_embedded_strs)."""
    return _decode_embedded(msgpack.unpackb(data, raw=True))


def _decode_embedded(value: Any) -> Any:
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return value
    if isinstance(value, dict):
        return {_decode_embedded(k): _decode_embedded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode_embedded(v) for v in value]
    return value


def _text(value: Any) -> Any:
    return value.decode("utf-8") if isinstance(value, bytes) else value


def new_key_string() -> str:
    """A crypticle key as Salt writes it: base64 of 24 AES + 32 HMAC random bytes (used as the sign-in token)."""
    return base64.b64encode(os.urandom(AES_KEY_BYTES + HMAC_KEY_BYTES)).decode("ascii")


class Crypticle:
    """The session cipher shared by the master and its minions after sign-in."""

    def __init__(self, key_string: str | bytes) -> None:
        raw = base64.b64decode(key_string)
        if len(raw) != AES_KEY_BYTES + HMAC_KEY_BYTES:
            raise ProtocolError(f"session key of {len(raw)} bytes")
        self.key = raw
        self._aes_key = raw[:AES_KEY_BYTES]
        self._hmac_key = raw[AES_KEY_BYTES:]
        # CBC decryption is one ECB pass over the blocks XORed with the blocks before them: with the key schedule
        # done once here, a reply costs a quarter of a new CBC cipher object's set-up (the swarm decrypts one per job)
        self._ecb = AES.new(self._aes_key, AES.MODE_ECB)
        self.serial = 0  # highest publish serial seen: a serial that does not increase is a replay

    def encrypt(self, plain: bytes) -> bytes:
        pad = 16 - len(plain) % 16
        iv = os.urandom(16)
        body = iv + AES.new(self._aes_key, AES.MODE_CBC, iv).encrypt(plain + bytes([pad]) * pad)
        return body + hmac.new(self._hmac_key, body, hashlib.sha256).digest()

    def decrypt(self, data: bytes) -> bytes:
        body, mac = data[:-32], data[-32:]
        if len(body) < 32 or len(body) % 16 \
                or not hmac.compare_digest(mac, hmac.new(self._hmac_key, body, hashlib.sha256).digest()):
            raise ProtocolError("message authentication failed")
        blocks = self._ecb.decrypt(body[16:])
        plain = (int.from_bytes(blocks, "big") ^ int.from_bytes(body[:-16], "big")).to_bytes(len(blocks), "big")
        pad = plain[-1]
        if not 1 <= pad <= 16:
            raise ProtocolError("bad padding")
        return plain[:-pad]

    def dumps(self, obj: Any) -> bytes:
        """A minion's request load: b"pickle::" + msgpack, encrypted (the nonce travels inside the load)."""
        return self.encrypt(PICKLE_PREFIX + pack(obj))

    def loads_reply(self, data: bytes, nonce: str) -> Any:
        """The master's answer to an encrypted request: b"pickle::" + the request's nonce + msgpack."""
        return unpack_text(self.check_reply(data, nonce))

    def check_reply(self, data: bytes, nonce: str) -> bytes:
        """The packed answer of a reply whose HMAC, prefix and nonce are right (a return's answer is not read)."""
        plain = self._strip_prefix(self.decrypt(data))
        if plain[:NONCE_CHARS] != nonce.encode("ascii"):
            raise ProtocolError("reply nonce does not match")
        return plain[NONCE_CHARS:]

    def open_publish(self, data: bytes) -> dict[str, Any] | None:
        """A publish load as the master sent it (HMAC checked, decrypted, decoded); None if it is not a map."""
        load = unpack_text(self._strip_prefix(self.decrypt(data)))
        return load if isinstance(load, dict) else None

    def fresh(self, load: dict[str, Any]) -> bool:
        """Whether a publish is new to this minion: its serial, if it has one, must increase (a replay's does not)."""
        if "serial" not in load:
            return True
        serial = load["serial"]
        if not isinstance(serial, int) or serial <= self.serial:
            return False
        self.serial = serial
        return True

    @staticmethod
    def _strip_prefix(plain: bytes) -> bytes:
        if not plain.startswith(PICKLE_PREFIX):
            raise ProtocolError("payload without the pickle:: prefix")
        return plain[len(PICKLE_PREFIX):]


def oaep_encrypt(public: RSA.RsaKey, data: bytes) -> bytes:
    return PKCS1_OAEP.new(public).encrypt(data)  # SHA-1 and MGF1-SHA1, pycryptodome's defaults, as Salt's


def oaep_decrypt(private: RSA.RsaKey, data: bytes) -> bytes:
    return PKCS1_OAEP.new(private).decrypt(data)


def verify_pkcs1_sha1(public: RSA.RsaKey, data: bytes, signature: bytes) -> bool:
    try:
        pkcs1_15.new(public).verify(SHA1.new(data), signature)
        return True
    except (ValueError, TypeError):
        return False


def x931_recover(public: RSA.RsaKey, signature: bytes) -> bytes:
    """OpenSSL's RSA_public_decrypt with X9.31 padding: the message inside an X9.31 signature.

    The signer sends min(s, n - s); the representative ends in nibble 0xC, so if s^e mod n does not,
    the other one (n - m) is the real one. Layout: 0x6B 0xBB.. 0xBA msg 0xCC, or 0x6A msg 0xCC.
    """
    n, size = public.n, (public.n.bit_length() + 7) // 8
    m = pow(int.from_bytes(signature, "big"), public.e, n)
    if m & 0xF != 0xC:
        m = n - m
    em = m.to_bytes(size, "big")  # the encoding fills the modulus: a leading 0x00 is no header
    if em[-1] != 0xCC:
        raise ProtocolError("not an X9.31 signature")
    if em[0] == 0x6A:
        return em[1:-1]
    if em[0] != 0x6B:
        raise ProtocolError("bad X9.31 header")
    i = 1
    while i < len(em) and em[i] == 0xBB:
        i += 1
    if i >= len(em) or em[i] != 0xBA:
        raise ProtocolError("bad X9.31 padding")
    return em[i + 1:-1]


def x931_sign(private: RSA.RsaKey, message: bytes) -> bytes:
    """OpenSSL's RSA_private_encrypt with X9.31 padding (the minion's "tok" proof of its key)."""
    n, size = private.n, (private.n.bit_length() + 7) // 8
    fill = size - len(message) - 2  # bytes between the header nibble byte and the message
    if fill < 0:
        raise ValueError("message too long for X9.31")
    em = b"\x6a" + message + b"\xcc" if fill == 0 else b"\x6b" + b"\xbb" * (fill - 1) + b"\xba" + message + b"\xcc"
    s = _private_op(private, int.from_bytes(em, "big"))
    return min(s, n - s).to_bytes(size, "big")


def _private_op(key: RSA.RsaKey, m: int) -> int:
    """m^d mod n by the Chinese remainder theorem (four times faster than one pow with d)."""
    p, q, d = int(key.p), int(key.q), int(key.d)
    m1, m2 = pow(m, d % (p - 1), p), pow(m, d % (q - 1), q)
    return (m2 + q * ((pow(q, -1, p) * (m1 - m2)) % p)) % (p * q)
