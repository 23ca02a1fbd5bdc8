"""The swarm's ZMTP client against libzmq's own ROUTER and PUB (pyzmq). Run: cd bench/swarm && /usr/bin/python3 -m
unittest -v test_zmtp"""
from __future__ import annotations

import select
import socket
import struct
import threading
import time
import unittest

import zmq
from Cryptodome.PublicKey import RSA

import saltwire as w
import zmtp
from minion import MasterTrust, Minion, Session
from zmtp import FrameReader, ZmtpClient, ZmtpError


KEY = RSA.generate(2048)


def wait_for(client: ZmtpClient, count: int = 1, timeout: float = 5.0) -> list[bytes]:
    got: list[bytes] = []
    deadline = time.time() + timeout
    while len(got) < count and time.time() < deadline:
        select.select([client.sock], [], [], 0.1)
        got += client.read()
    return got


class AgainstLibzmqTest(unittest.TestCase):
    def setUp(self) -> None:
        self.ctx = zmq.Context()

    def tearDown(self) -> None:
        self.ctx.destroy(linger=0)

    def test_a_req_message_reaches_a_router_behind_a_delimiter_and_its_answer_comes_back(self) -> None:
        router = self.ctx.socket(zmq.ROUTER)
        port = router.bind_to_random_port("tcp://127.0.0.1")
        client = ZmtpClient("127.0.0.1", port, "REQ")
        client.send(b"return" * 100)  # over 255 bytes: a long frame
        self.assertFalse(router.poll(100))  # queued until flushed
        client.flush()
        self.assertEqual(client.pending, b"")
        self.assertTrue(router.poll(5000))
        identity, delimiter, body = router.recv_multipart()
        self.assertEqual((delimiter, body), (b"", b"return" * 100))
        router.send_multipart([identity, b"", b"ack"])
        self.assertEqual(wait_for(client), [b"ack"])
        client.close()

    def test_a_sub_receives_what_a_pub_sends_after_it_subscribed_and_the_last_frame_of_a_topic_message(self) -> None:
        pub = self.ctx.socket(zmq.XPUB)  # an XPUB shows the subscription arrive
        port = pub.bind_to_random_port("tcp://127.0.0.1")
        client = ZmtpClient("127.0.0.1", port, "SUB")
        self.assertTrue(pub.poll(5000))
        self.assertEqual(pub.recv(), b"\x01")  # subscribed to every prefix
        pub.send(b"publish")
        pub.send_multipart([b"topic", b"payload"])
        self.assertEqual(wait_for(client, 2), [b"publish", b"payload"])
        client.close()

    def test_a_closed_peer_closes_the_client(self) -> None:
        router = self.ctx.socket(zmq.ROUTER)
        port = router.bind_to_random_port("tcp://127.0.0.1")
        client = ZmtpClient("127.0.0.1", port, "REQ")
        client.send(b"x")
        client.flush()
        self.assertTrue(router.poll(5000))
        router.close(linger=0)
        deadline = time.time() + 5
        while not client.closed and time.time() < deadline:
            select.select([client.sock], [], [], 0.1)
            client.read()
        self.assertTrue(client.closed)


class MinionConnectionTest(unittest.TestCase):
    """A minion's job connections against libzmq's ROUTER: what it does when the master closes them."""

    def setUp(self) -> None:
        self.ctx = zmq.Context()
        self.router = self.ctx.socket(zmq.ROUTER)
        self.port = self.router.bind_to_random_port("tcp://127.0.0.1")
        self.pub = self.ctx.socket(zmq.PUB)
        pub_port = self.pub.bind_to_random_port("tcp://127.0.0.1")
        self.returned: list[tuple[str, bool]] = []
        self.minion = Minion("sw-1", KEY, "127.0.0.1", self.port, None, MasterTrust(), lambda *a: None,
                             lambda jid, at, ok: self.returned.append((jid, ok)))
        self.minion.session = Session(w.Crypticle(w.new_key_string()), pub_port)
        self.minion.open_job_sockets(None)

    def tearDown(self) -> None:
        self.minion.sub.close()
        self.minion.req.close()
        self.ctx.destroy(linger=0)

    def test_a_return_in_flight_when_the_master_closed_the_connection_is_sent_again_on_the_new_one(self) -> None:
        self.minion._outbox.append(("j1", {"cmd": "_return", "id": "sw-1", "jid": "j1", "return": True}))
        self.minion._send_next()
        self.minion.req.flush()
        self.assertTrue(self.router.poll(5000))
        first = self.router.recv_multipart()
        self.minion.req.close()  # as when the master dropped it
        self.minion.reconnect()
        self.minion.req.flush()
        self.assertTrue(self.router.poll(5000))
        again = self.router.recv_multipart()
        self.assertNotEqual(first[0], again[0])  # another connection
        self.assertEqual(first[1:], again[1:])  # the same return, delimiter and body

    def test_a_reply_with_no_return_in_flight_is_dropped(self) -> None:
        self.minion.on_reply(b"\x01")
        self.assertEqual(self.returned, [])


class FrameReaderTest(unittest.TestCase):
    GREETING = b"\xff" + b"\x00" * 8 + b"\x7f" + bytes([3, 1]) + b"NULL".ljust(20, b"\x00") + b"\x00" * 32

    def test_frames_split_anywhere_come_out_whole_and_commands_apart(self) -> None:
        data = self.GREETING + zmtp.ready("ROUTER") + zmtp.frame(b"", 1) + zmtp.frame(b"y" * 300)
        reader, messages, commands = FrameReader(), [], []
        for i in range(len(data)):  # one byte at a time
            m, c = reader.feed(data[i:i + 1])
            messages += m
            commands += c
        self.assertEqual(messages, [[b"", b"y" * 300]])
        self.assertEqual([c[1:6] for c in commands], [b"READY"])

    def test_a_message_over_the_limit_is_refused_before_its_bytes_arrive(self) -> None:
        huge = bytes([2]) + struct.pack(">Q", zmtp.MAX_MESSAGE_BYTES + 1)
        with self.assertRaises(ZmtpError):
            FrameReader().feed(self.GREETING + huge)

    def test_a_peer_that_is_not_zmtp_3_or_wants_another_mechanism_is_refused(self) -> None:
        with self.assertRaises(ZmtpError):
            FrameReader().feed(b"HTTP/1.1 200 OK\r\n" + b"\x00" * 60)
        with self.assertRaises(ZmtpError):
            FrameReader().feed(self.GREETING.replace(b"NULL", b"CURV"))

    def test_a_ping_is_answered_with_a_pong_carrying_its_context(self) -> None:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        peer_ready = self.GREETING + zmtp.ready("ROUTER")
        accepted: list[socket.socket] = []
        accepting = threading.Thread(target=lambda: accepted.append(server.accept()[0]))
        accepting.start()
        threading.Timer(0.2, lambda: accepted[0].sendall(peer_ready)).start()
        client = ZmtpClient("127.0.0.1", server.getsockname()[1], "REQ")
        peer = accepted[0]
        peer.settimeout(5)
        hello = b""
        while len(hello) < len(zmtp._GREETING + zmtp.ready("REQ")):
            hello += peer.recv(4096)
        self.assertEqual(hello[64:], zmtp.ready("REQ"))
        peer.sendall(zmtp.command(b"PING", b"\x00\x0actx"))
        deadline = time.time() + 5
        while not client.closed and time.time() < deadline and not select.select([peer], [], [], 0)[0]:
            select.select([client.sock], [], [], 0.1)
            client.read()
        self.assertEqual(peer.recv(4096), zmtp.command(b"PONG", b"ctx"))
        client.close()
        peer.close()
        server.close()


if __name__ == "__main__":
    unittest.main()
