#!/usr/bin/python3
"""Writes the golden vectors under this directory with independent implementations: Debian's python3-msgpack,
python3-pycryptodome and OpenSSL's libcrypto (X9.31 through RSA_private_encrypt). Run from this directory:
    /usr/bin/python3 make_golden.py
Re-running makes new keys and random values; the Java tests read whatever is here."""
import base64, ctypes, ctypes.util, hashlib, hmac, json, os

import msgpack
from Cryptodome.Cipher import AES, PKCS1_OAEP
from Cryptodome.Hash import SHA1
from Cryptodome.PublicKey import RSA
from Cryptodome.Signature import pkcs1_15
from Cryptodome.Util.Padding import pad

libcrypto = ctypes.cdll.LoadLibrary(ctypes.util.find_library("crypto"))
libcrypto.BIO_new_mem_buf.restype = ctypes.c_void_p
libcrypto.BIO_new_mem_buf.argtypes = [ctypes.c_char_p, ctypes.c_int]
libcrypto.PEM_read_bio_RSAPrivateKey.restype = ctypes.c_void_p
libcrypto.PEM_read_bio_RSAPrivateKey.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
libcrypto.RSA_size.argtypes = [ctypes.c_void_p]
libcrypto.RSA_private_encrypt.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int]
RSA_X931_PADDING = 5


def x931_sign(private_pem: bytes, message: bytes) -> bytes:
    bio = libcrypto.BIO_new_mem_buf(private_pem, len(private_pem))
    rsa = libcrypto.PEM_read_bio_RSAPrivateKey(bio, None, None, None)
    out = ctypes.create_string_buffer(libcrypto.RSA_size(rsa))
    size = libcrypto.RSA_private_encrypt(len(message), message, out, rsa, RSA_X931_PADDING)
    assert size > 0, "RSA_private_encrypt failed"
    return out.raw[:size]


def pack(obj) -> bytes:
    return msgpack.packb(obj, use_bin_type=False)


def crypticle_encrypt(key_string: str, plain: bytes, iv: bytes) -> bytes:
    key = base64.b64decode(key_string)
    ct = AES.new(key[:24], AES.MODE_CBC, iv).encrypt(pad(plain, 16))
    mac = hmac.new(key[24:], iv + ct, hashlib.sha256).digest()
    return iv + ct + mac


master = RSA.generate(2048)
minion = RSA.generate(2048)
keys = {
    "master.pem": master.export_key("PEM").decode(),
    "master.pub": master.publickey().export_key("PEM").decode(),
    "minion.pem": minion.export_key("PEM").decode(),
    "minion.pub": minion.publickey().export_key("PEM").decode(),
}
for name, text in keys.items():
    with open(name, "w") as f:
        f.write(text + "\n")

session = base64.b64encode(os.urandom(56)).decode()
iv = os.urandom(16)
nonce = "0123456789abcdef0123456789abcdef"
publish_load = {"fun": "test.echo", "arg": ["héllo-ünicode"], "tgt": ["web-1", "web-2"],
                "jid": "20261122062340135492", "ret": "", "tgt_type": "list", "user": "root", "serial": 24}
publish_ct = crypticle_encrypt(session, b"pickle::" + pack(publish_load), iv)
publish_frame = pack({"enc": "aes", "load": publish_ct,
                      "sig": pkcs1_15.new(master).sign(SHA1.new(publish_ct))})
return_ct = crypticle_encrypt(session, b"pickle::" + nonce.encode() + pack(
    {"cmd": "_return", "id": "web-1", "jid": "20261122062340135492", "fun": "test.ping", "fun_args": [],
     "return": True, "retcode": 0, "success": True, "nonce": nonce}), iv)

aes_digest = hashlib.sha256(session.encode()).hexdigest().encode()
token = base64.b64encode(os.urandom(56))
inner = {"enc": "pub", "pub_key": keys["master.pub"], "publish_port": 4505,
         "aes": PKCS1_OAEP.new(minion.publickey()).encrypt(session.encode()),
         "sig": x931_sign(keys["master.pem"].encode(), aes_digest),
         "token": PKCS1_OAEP.new(minion.publickey()).encrypt(token), "nonce": nonce}
inner_packed = pack(inner)
auth_reply = pack({"enc": "clear", "load": inner_packed,
                   "sig": pkcs1_15.new(master).sign(SHA1.new(inner_packed))})
minion_tok = x931_sign(keys["minion.pem"].encode(), b"salt")

vectors = {
    "session_key": session,
    "iv_hex": iv.hex(),
    "nonce": nonce,
    "token": token.decode(),
    "msgpack_samples": [
        {"value": {"a": 1, "b": [True, None, -5, 3.5]}, "hex": pack({"a": 1, "b": [True, None, -5, 3.5]}).hex()},
        {"value": "x" * 40, "hex": pack("x" * 40).hex()},
        {"value": "é" * 200, "hex": pack("é" * 200).hex()},
        {"value": 2 ** 40, "hex": pack(2 ** 40).hex()},
    ],
    "publish_load": publish_load,
    "publish_load_hex": pack(publish_load).hex(),
    "publish_frame_hex": publish_frame.hex(),
    "return_ciphertext_hex": return_ct.hex(),
    "auth_reply_hex": auth_reply.hex(),
    "x931_message": "sha256-hex of the session key",
    "x931_master_sig_hex": inner["sig"].hex(),
    "minion_tok_hex": minion_tok.hex(),
}
with open("vectors.json", "w") as f:
    json.dump(vectors, f, indent=1, ensure_ascii=False)
print("wrote vectors.json and four PEM files")
