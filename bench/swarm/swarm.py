#!/usr/bin/python3
"""A swarm of simulated Salt 3006 minions: --procs processes (default: one per core), each running its
share of --count minions: signed in on one asyncio loop (libzmq), then their jobs on one epoll loop over plain ZMTP
connections (zmtp.py). Shares no code with Drover or Salt.

Each process reports to the driver (a ZeroMQ PUSH to --report): "ready" once all its minions signed in
and subscribed, then one message per job once each of its minions acknowledged its return, with the
time the first publish arrived and the time the last return was acknowledged by the master.

Usage: swarm.py --master 127.0.0.1 --count 1000 [--procs N] [--prefix sw-] [--keys DIR] [--key-pool K]
                [--report ipc:///tmp/swarm-report.ipc] [--signin-concurrency 32] [--start-event]
                [--returns burst|each]
SWARM_PROFILE=PATH: each process's job loop runs under cProfile, its statistics written to PATH.<index> when it ends.
"""
from __future__ import annotations

import argparse
import asyncio
import cProfile
import ctypes
import multiprocessing
import os
import resource
import select
import signal
import sys
import time
from pathlib import Path

import zmq
import zmq.asyncio
from Cryptodome.PublicKey import RSA

sys.path.insert(0, str(Path(__file__).resolve().parent))
from minion import JobReport, MasterTrust, Minion, PublishOpener, SignInRefused  # noqa: E402
from zmtp import ZmtpClient, ZmtpError  # noqa: E402

JOB_REPORT_TIMEOUT = 60.0  # a job with missing returns is reported as it stands after this long


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--master", default="127.0.0.1")
    p.add_argument("--ret-port", type=int, default=4506)
    p.add_argument("--count", type=int, required=True, help="minions in all processes together")
    p.add_argument("--procs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--prefix", default="sw-")
    p.add_argument("--keys", default=os.path.expanduser("~/.cache/salt-swarm-keys"),
                   help="directory of cached RSA keys k00000.pem ... (missing ones are generated)")
    p.add_argument("--key-pool", type=int, default=0, help="reuse K keys for all ids (0: one key per minion)")
    p.add_argument("--report", default="ipc:///tmp/salt-swarm-report.ipc")
    p.add_argument("--signin-concurrency", type=int, default=32, help="sign-ins in flight per process")
    p.add_argument("--start-event", action="store_true", help="fire salt/minion/<id>/start after sign-in")
    p.add_argument("--returns", choices=("burst", "each"), default="burst",
                   help="burst: the returns one wake-up of a process's loop made are written together once it is "
                        "handled; each: every return is written as soon as it is made")
    return p.parse_args(argv)


def load_key(directory: Path, index: int) -> RSA.RsaKey:
    """Keys are slow to make (~0.3 s each): cached on disk, written atomically so processes can share the dir."""
    path = directory / f"k{index:05d}.pem"
    if path.exists():
        return RSA.import_key(path.read_bytes())
    key = RSA.generate(2048)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_bytes(key.export_key())
    os.replace(tmp, path)
    return key


class ProcessSwarm:
    """The minions of one process and the per-job tally it reports."""

    def __init__(self, args: argparse.Namespace, index: int, ids: list[tuple[int, str]]) -> None:
        self.args, self.index = args, index
        self.ctx = zmq.asyncio.Context()  # sign-ins
        self.ctx.set(zmq.MAX_SOCKETS, 2 * len(ids) + 64)
        self.plain = zmq.Context()  # the report, and a sign-in again after the master rotated its key
        self.report = self.plain.socket(zmq.PUSH)
        self.report.connect(args.report)
        self.trust = MasterTrust()
        publishes = PublishOpener()
        self.jobs: dict[str, JobReport] = {}
        keys = Path(args.keys)
        keys.mkdir(parents=True, exist_ok=True)
        pool = args.key_pool
        self.minions = [Minion(ident, load_key(keys, n % pool if pool else n), args.master, args.ret_port,
                               self.ctx, self.trust, self._received, self._returned, publishes) for n, ident in ids]

    def _received(self, jid: str, at: float) -> None:
        job = self.jobs.setdefault(jid, JobReport())
        if job.received == 0:
            job.first_received = at
        job.received += 1

    def _returned(self, jid: str, at: float, ok: bool) -> None:
        job = self.jobs[jid]
        if ok:
            job.acknowledged += 1
            job.last_acknowledged = max(job.last_acknowledged, at)
        else:
            job.failed += 1
        if job.acknowledged + job.failed == len(self.minions):
            self._send_job(jid)

    def _send_job(self, jid: str) -> None:
        job = self.jobs.get(jid)
        if job is None or job.reported:
            return
        job.reported = True
        self.report.send_json({"type": "job", "proc": self.index, "jid": jid, "received": job.received,
                               "acknowledged": job.acknowledged, "failed": job.failed,
                               "first_received": job.first_received, "last_acknowledged": job.last_acknowledged})

    async def sign_in_all(self) -> list[Minion]:
        started = time.time()
        gate = asyncio.Semaphore(self.args.signin_concurrency)
        results = await asyncio.gather(*(self._start(m, gate) for m in self.minions), return_exceptions=True)
        failed = [r for r in results if isinstance(r, BaseException)]
        for err in failed[:5]:
            print(f"proc {self.index}: {type(err).__name__}: {err}", flush=True)
        signed_in = [m for m in results if isinstance(m, Minion)]
        for minion in signed_in:
            minion.open_job_sockets(self.plain)
        took = time.time() - started
        print(f"proc {self.index}: {len(signed_in)}/{len(self.minions)} minions signed in and subscribed "
              f"in {took:.1f} s", flush=True)
        self.report.send_json({"type": "ready", "proc": self.index, "pid": os.getpid(),
                               "minions": len(signed_in), "failed": len(failed), "seconds": took})
        return signed_in

    async def _start(self, minion: Minion, gate: asyncio.Semaphore) -> Minion:
        async with gate:
            await minion.sign_in()
            if self.args.start_event:
                await minion.fire_start_event()
        return minion

    def serve(self, minions: list[Minion]) -> None:
        """Every minion's jobs on one loop: publishes in, returns out, replies checked, timeouts handled. The loop waits
        on the minions' ZMTP connections with epoll, so a wake-up costs what is ready, not a scan of every socket."""
        burst = self.args.returns == "burst"
        poller = select.epoll()
        watching: dict[int, tuple[ZmtpClient, Minion, int]] = {}  # fd: its connection, minion and events
        writing: set[str] = set()  # minions with a connection watched for writability

        def watch(minion: Minion) -> None:
            """Watches the minion's open connections for reading, and for writing while output waits. A closed
            connection left epoll with its fd; a new one may reuse that fd, so entries are matched by connection."""
            writing.discard(minion.ident)
            for client in (minion.sub, minion.req):
                if client.closed:
                    continue
                fd, events = client.fileno(), select.EPOLLIN | (select.EPOLLOUT if client.pending else 0)
                if client.pending:
                    writing.add(minion.ident)
                known = watching.get(fd)
                if known is None or known[0] is not client:
                    try:
                        poller.register(fd, events)
                    except FileExistsError:  # the fd's earlier connection is closed but epoll still had it
                        poller.modify(fd, events)
                elif known[2] != events:
                    poller.modify(fd, events)
                watching[fd] = (client, minion, events)

        for minion in minions:
            watch(minion)
        last_check = time.time()
        while True:
            woken: dict[str, Minion] = {}  # in order, once each
            for fd, _ in poller.poll(1.0):
                client, minion, _ = watching[fd]
                if client.closed:
                    continue
                try:
                    payloads = client.read()
                except ZmtpError as err:  # the connection is closed; the periodic check opens it again
                    print(f"{minion.ident}: {err}", flush=True)
                    payloads = []
                for payload in payloads:
                    try:
                        if client is minion.sub:
                            minion.on_publish(payload)
                        elif client is minion.req:
                            minion.on_reply(payload)
                    except Exception as err:  # noqa: BLE001 - one bad message costs that message, not the others
                        print(f"{minion.ident}: {type(err).__name__}: {err}", flush=True)
                woken[minion.ident] = minion
                if not burst:
                    minion.req.flush()
            # --returns burst: the returns this wake-up made go out together now. Written one by one between
            # decryptions (--returns each), each finds an idle master reader and wakes it: docs/benchmarks.md has both.
            for minion in woken.values():
                minion.sub.flush()
                minion.req.flush()
                if minion.sub.pending or minion.req.pending or minion.ident in writing:
                    watch(minion)
            now = time.time()
            if now - last_check >= 1.0:
                last_check = now
                for minion in minions:
                    try:
                        if minion.sub.closed or minion.req.closed:
                            minion.reconnect()
                        if minion.timed_out(now):
                            minion.retry_request(now)
                    except (OSError, ZmtpError) as err:  # tried again at the next check
                        print(f"{minion.ident}: reconnecting: {err}", flush=True)
                    minion.req.flush()
                    watch(minion)
                for jid, job in list(self.jobs.items()):
                    if not job.reported and now - job.first_received >= JOB_REPORT_TIMEOUT:
                        self._send_job(jid)  # reported as it stands


def raise_open_files() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def die_with_parent() -> None:
    """Linux: SIGTERM this worker when the launcher dies, however it dies (no orphaned minions that would
    sign in to the next master started on the same port)."""
    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGTERM)


def process_main(args: argparse.Namespace, index: int, ids: list[tuple[int, str]]) -> None:
    die_with_parent()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    raise_open_files()
    profile_to = os.environ.get("SWARM_PROFILE")  # a path: each process's job loop is profiled into PATH.<index>
    try:
        swarm = ProcessSwarm(args, index, ids)
        minions = asyncio.run(swarm.sign_in_all())
        if profile_to:
            profiler = cProfile.Profile()
            try:
                profiler.runcall(swarm.serve, minions)
            finally:
                profiler.dump_stats(f"{profile_to}.{index}")
        else:
            swarm.serve(minions)
    except (KeyboardInterrupt, SignInRefused):
        pass


def main(argv: list[str]) -> None:
    args = parse_args(argv)
    width = len(str(args.count - 1))
    everyone = [(n, f"{args.prefix}{n:0{width}d}") for n in range(args.count)]
    shares = [everyone[i::args.procs] for i in range(args.procs)]
    procs = [multiprocessing.Process(target=process_main, args=(args, i, share), name=f"swarm-{i}")
             for i, share in enumerate(shares) if share]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    for proc in procs:
        proc.start()
    try:
        for proc in procs:
            proc.join()
    finally:  # SIGTERM, Ctrl-C, or a worker that ended: stop them all
        for proc in procs:
            proc.terminate()


if __name__ == "__main__":
    main(sys.argv[1:])
