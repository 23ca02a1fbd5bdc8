#!/usr/bin/python3
"""Writes signed_messages.json: a _return and a _minion_event as a salt-minion 3006 with minion_sign_messages sends
them, signed with this directory's minion.pem the way salt/minion.py _send_req_sync does (salt.crypt.sign_message:
PKCS#1 v1.5 SHA-1 over salt.serializers.msgpack.serialize(load), i.e. msgpack-python's defaults, use_bin_type=True),
then given the nonce and packed for the wire (use_bin_type=False) as salt/channel/client.py does. Uses Debian's
python3-msgpack and python3-pycryptodome and OpenSSL's libcrypto (the event token is X9.31). Run from this directory:
    /usr/bin/python3 make_signed_messages.py"""
import ctypes, ctypes.util, json

import msgpack
from Cryptodome.Hash import SHA1
from Cryptodome.PublicKey import RSA
from Cryptodome.Signature import pkcs1_15

libcrypto = ctypes.cdll.LoadLibrary(ctypes.util.find_library("crypto"))
libcrypto.BIO_new_mem_buf.restype = ctypes.c_void_p
libcrypto.BIO_new_mem_buf.argtypes = [ctypes.c_char_p, ctypes.c_int]
libcrypto.PEM_read_bio_RSAPrivateKey.restype = ctypes.c_void_p
libcrypto.PEM_read_bio_RSAPrivateKey.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
libcrypto.RSA_size.argtypes = [ctypes.c_void_p]
libcrypto.RSA_private_encrypt.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]


def x931_sign(private_pem: bytes, message: bytes) -> bytes:
    bio = libcrypto.BIO_new_mem_buf(private_pem, len(private_pem))
    rsa = libcrypto.PEM_read_bio_RSAPrivateKey(bio, None, None, None)
    out = ctypes.create_string_buffer(libcrypto.RSA_size(rsa))
    size = libcrypto.RSA_private_encrypt(len(message), message, out, rsa, 5)
    assert size > 0, "RSA_private_encrypt failed"
    return out.raw[:size]


pem = open("minion.pem", "rb").read()
key = RSA.import_key(pem)
minion_id = "salt-minion-1"
ret = {"success": True, "return": {"pid": 4242, "stdout": "héllo ünicode", "retcode": 0, "ratio": 0.5, "none": None},
       "retcode": 0, "jid": "20261127120000123456", "fun": "cmd.run_all", "fun_args": ["echo héllo"],
       "id": minion_id, "cmd": "_return"}
event = {"id": minion_id, "cmd": "_minion_event", "pretag": None, "tok": x931_sign(pem, b"salt"),
         "tag": "salt/minion/" + minion_id + "/start", "data": {"data": "Minion started", "_stamp": "2026-11-27T12:00:00.000000"}}
out = {"id": minion_id}
for name, load in (("return", ret), ("event", event)):
    load = dict(load)
    load["sig"] = pkcs1_15.new(key).sign(SHA1.new(msgpack.packb(load)))
    load["nonce"] = "0123456789abcdef0123456789abcdef"
    out[name] = msgpack.packb(load, use_bin_type=False).hex()
with open("signed_messages.json", "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
