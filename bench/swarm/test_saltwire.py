"""Checks of the swarm's wire rules. Run: cd bench/swarm && /usr/bin/python3 -m unittest -v test_saltwire"""
from __future__ import annotations

import base64
import hashlib
import hmac
import ctypes
import ctypes.util
import unittest

from Cryptodome.PublicKey import RSA

import saltwire as w
from minion import Minion, MasterTrust, PublishOpener

KEY = RSA.generate(2048)


class MsgpackTest(unittest.TestCase):
    def test_bytes_and_str_are_packed_as_raw_never_bin_or_str8(self) -> None:
        self.assertEqual(w.pack(b"x" * 40)[:3], b"\xda\x00\x28")
        self.assertEqual(w.pack("x" * 40)[:3], b"\xda\x00\x28")
        self.assertEqual(w.pack(b"ab"), b"\xa2ab")

    def test_text_values_are_decoded_and_binary_ones_kept(self) -> None:
        self.assertEqual(w.unpack_text(w.pack({"a": "é", "b": b"\xff\x00"})), {"a": "é", "b": b"\xff\x00"})


class CrypticleTest(unittest.TestCase):
    def setUp(self) -> None:
        self.c = w.Crypticle(w.new_key_string())

    def test_a_request_load_round_trips(self) -> None:
        plain = self.c.decrypt(self.c.dumps({"cmd": "_return"}))
        self.assertTrue(plain.startswith(b"pickle::"))
        self.assertEqual(w.unpack_text(plain[8:]), {"cmd": "_return"})

    def test_decryption_undoes_aes_cbc_for_every_length_and_refuses_a_body_not_in_blocks(self) -> None:
        for size in range(0, 70):
            plain = bytes(range(size))
            self.assertEqual(self.c.decrypt(self.c.encrypt(plain)), plain)
        sealed = self.c.encrypt(b"x" * 20)
        body = sealed[:-32] + b"y"  # one byte more than whole blocks, with a valid HMAC over it
        with self.assertRaises(w.ProtocolError):
            self.c.decrypt(body + hmac.new(self.c.key[24:], body, hashlib.sha256).digest())

    def test_a_changed_byte_fails_the_hmac(self) -> None:
        data = bytearray(self.c.dumps({"a": 1}))
        data[20] ^= 1
        with self.assertRaises(w.ProtocolError):
            self.c.decrypt(bytes(data))

    def test_a_reply_must_carry_the_requests_nonce(self) -> None:
        nonce = "0" * 32
        reply = self.c.encrypt(b"pickle::" + nonce.encode() + w.pack(None))
        self.assertIsNone(self.c.loads_reply(reply, nonce))
        with self.assertRaises(w.ProtocolError):
            self.c.loads_reply(reply, "1" * 32)

    def test_a_publish_whose_serial_does_not_increase_is_dropped(self) -> None:
        first = self.c.open_publish(self.c.dumps({"fun": "test.ping", "serial": 5}))
        self.assertEqual(first, {"fun": "test.ping", "serial": 5})
        self.assertTrue(self.c.fresh(first))
        self.assertFalse(self.c.fresh(first))
        self.assertFalse(self.c.fresh(self.c.open_publish(self.c.dumps({"fun": "test.ping", "serial": 4}))))
        self.assertTrue(self.c.fresh({"fun": "test.ping", "serial": 6}))

    def test_the_minions_of_a_process_open_a_publish_once_and_each_checks_its_serial(self) -> None:
        opener, other = PublishOpener(), w.Crypticle(base64.b64encode(self.c.key))  # another minion's
        frame = w.pack({"enc": "aes", "load": self.c.dumps({"fun": "test.ping", "serial": 1})})
        load = opener.open(self.c, frame)
        self.assertIs(opener.open(other, frame), load)  # the same key and bytes: not decrypted again
        self.assertTrue(self.c.fresh(load))
        self.assertTrue(other.fresh(load))  # each minion's own serial
        self.assertFalse(self.c.fresh(load))
        forged = bytearray(frame)
        forged[-5] ^= 1
        with self.assertRaises(w.ProtocolError):
            opener.open(self.c, bytes(forged))
        self.assertIsNone(opener.open(self.c, w.pack({"enc": "clear", "load": b"x"})))
        self.assertIsNone(opener.open(self.c, w.pack([b"aes", b"x"])))  # not a map
        self.assertIsNone(opener.open(self.c, w.pack({"enc": "aes"})))  # no load


class X931Test(unittest.TestCase):
    def test_sign_and_recover(self) -> None:
        for message in (b"salt", b"a" * 64, b"b" * 254):
            self.assertEqual(w.x931_recover(KEY.publickey(), w.x931_sign(KEY, message)), message)

    def test_an_encoding_shorter_than_the_modulus_is_refused(self) -> None:
        message = b"salt"
        short = b"\x6b" + b"\xbb" * (256 - len(message) - 4) + b"\xba" + message + b"\xcc"  # 255 bytes
        signature = w._private_op(KEY, int.from_bytes(short, "big")).to_bytes(256, "big")
        with self.assertRaises(w.ProtocolError):
            w.x931_recover(KEY.publickey(), signature)

    def test_a_wrong_key_does_not_recover_the_message(self) -> None:
        other = RSA.generate(2048)
        with self.assertRaises(w.ProtocolError):
            w.x931_recover(other.publickey(), w.x931_sign(KEY, b"salt"))

    @unittest.skipUnless(ctypes.util.find_library("crypto"), "needs OpenSSL's libcrypto")
    def test_same_bytes_as_openssl_rsa_x931_padding(self) -> None:
        lib = ctypes.CDLL(ctypes.util.find_library("crypto"))
        lib.BIO_new_mem_buf.restype = ctypes.c_void_p
        lib.BIO_new_mem_buf.argtypes = [ctypes.c_char_p, ctypes.c_int]
        lib.PEM_read_bio_RSAPrivateKey.restype = ctypes.c_void_p
        lib.PEM_read_bio_RSAPrivateKey.argtypes = [ctypes.c_void_p] * 4
        lib.RSA_private_encrypt.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p,
                                            ctypes.c_int]
        pem = KEY.export_key()
        rsa = lib.PEM_read_bio_RSAPrivateKey(lib.BIO_new_mem_buf(pem, len(pem)), None, None, None)
        x931_padding = 5  # RSA_X931_PADDING
        for message in (b"salt", b"c" * 64):
            out = ctypes.create_string_buffer(256)
            size = lib.RSA_private_encrypt(len(message), message, out, rsa, x931_padding)
            self.assertEqual(w.x931_sign(KEY, message), out.raw[:size])


class TargetTest(unittest.TestCase):
    def minion(self, ident: str) -> Minion:
        return Minion(ident, KEY, "127.0.0.1", 4506, None, MasterTrust(), lambda *a: None, lambda *a: None)

    def test_glob_list_and_pcre(self) -> None:
        m = self.minion("sw-042")
        self.assertTrue(m._targeted({"tgt": "sw-*", "tgt_type": "glob"}))
        self.assertTrue(m._targeted({"tgt": "*"}))
        self.assertFalse(m._targeted({"tgt": "web*", "tgt_type": "glob"}))
        self.assertTrue(m._targeted({"tgt": ["a", "sw-042"], "tgt_type": "list"}))
        self.assertTrue(m._targeted({"tgt": "a,sw-042", "tgt_type": "list"}))
        self.assertFalse(m._targeted({"tgt": ["sw-04"], "tgt_type": "list"}))
        self.assertTrue(m._targeted({"tgt": r"sw-0\d+", "tgt_type": "pcre"}))
        self.assertFalse(m._targeted({"tgt": "G@os:Debian", "tgt_type": "compound"}))


if __name__ == "__main__":
    unittest.main()
