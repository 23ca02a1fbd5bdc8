#!/usr/bin/python3
"""Drives timed job rounds against a master the swarm (swarm.py) has joined, and measures CPU.

A round: note the time, start one job for all minions (Drover: POST /api/v1/jobs; a salt-master: the
LocalClient's clear "publish" request on its request port, with the root key from its cache dir), then
wait until every swarm process reported every one of its minions' returns acknowledged by the master.
The round's time is from just before the job was started to the last acknowledgement the swarm saw,
so neither side pays for a CLI's start-up or for waiting on its own job store. CPU per round is read
from /proc (utime + stime) for the server's processes (the given pid and all its descendants) and for
the swarm's processes, from the start of one round to the start of the next (so work a round leaves
behind is counted).

Usage: drive.py --expect N (--drover URL --token-file F | --salt HOST:PORT --root-key F) --server-pid PID
                [--rounds 15] [--warmup 3] [--fun test.ping] [--tgt '*'] [--gap 0.5] [--report ENDPOINT]
                [--summary FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import http.client
import urllib.parse
from pathlib import Path

import msgpack
import zmq

ROUND_TIMEOUT = 60.0
TICKS = os.sysconf("SC_CLK_TCK")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--expect", type=int, required=True, help="minions that must return in a round")
    p.add_argument("--drover", help="Drover's base URL, e.g. http://127.0.0.1:18083")
    p.add_argument("--token-file", help="Drover admin token file")
    p.add_argument("--salt", help="salt-master request endpoint HOST:PORT, e.g. 127.0.0.1:4506")
    p.add_argument("--root-key", help="the salt-master's <cachedir>/.root_key")
    p.add_argument("--server-pid", type=int, required=True, help="server pid (its descendants are counted too)")
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--fun", default="test.ping")
    p.add_argument("--tgt", default="*")
    p.add_argument("--gap", type=float, default=0.5, help="seconds between rounds")
    p.add_argument("--report", default="ipc:///tmp/salt-swarm-report.ipc")
    p.add_argument("--ready-timeout", type=float, default=900.0)
    p.add_argument("--summary", help="write the figures as JSON here")
    args = p.parse_args(argv)
    if bool(args.drover) == bool(args.salt):
        p.error("give exactly one of --drover and --salt")
    return args


# ---- CPU from /proc ---------------------------------------------------------------------------

def cpu_seconds(pid: int) -> float:
    """utime + stime of one process (all its threads); 0 for a process that is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS  # fields 14 and 15 of stat, after "pid (comm)"


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent busy since boot (/proc/stat: everything but idle and iowait)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICKS  # user nice system idle iowait irq softirq steal


def process_tree(root: int) -> list[int]:
    """root and its descendants (a salt-master is a dozen processes)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


# ---- starting a job ---------------------------------------------------------------------------

class DroverJobs:
    """POST /api/v1/jobs on one kept-alive HTTP connection, as the Salt side keeps its REQ socket: neither side pays
    for a connection per job."""

    def __init__(self, url: str, token: str) -> None:
        parts = urllib.parse.urlsplit(url)
        self.host, self.port, self.token = parts.hostname, parts.port or 80, token
        self.conn: http.client.HTTPConnection | None = None

    def start(self, tgt: str, fun: str) -> str:
        body = json.dumps({"tgt": tgt, "fun": fun, "arg": []})
        headers = {"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"}
        while True:
            kept = self.conn is not None
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                self.conn.request("POST", "/api/v1/jobs", body=body, headers=headers)
                resp = self.conn.getresponse()
                answer = resp.read()
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.conn.close()
                self.conn = None
                if not kept:
                    raise
                continue  # the server had closed the kept connection before this request: once more on a new one
            if resp.status // 100 != 2:
                raise RuntimeError(f"POST /api/v1/jobs answered {resp.status}: {answer[:300]!r}")
            return str(json.loads(answer)["jid"])


class SaltJobs:
    """What salt's LocalClient sends: a clear "publish" with the user's key (no salt code needed)."""

    def __init__(self, endpoint: str, root_key: str) -> None:
        self.ctx = zmq.Context.instance()
        self.endpoint, self.key = f"tcp://{endpoint}", root_key
        self.sock = self._socket()

    def _socket(self) -> zmq.Socket:
        sock = self.ctx.socket(zmq.REQ)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(self.endpoint)
        return sock

    def start(self, tgt: str, fun: str) -> str:
        load = {"cmd": "publish", "tgt": tgt, "fun": fun, "arg": [], "tgt_type": "glob", "key": self.key,
                "ret": "", "jid": "", "kwargs": {"show_jid": False, "delimiter": ":"}, "user": "root"}
        self.sock.send(msgpack.packb({"enc": "clear", "load": load, "version": 2}, use_bin_type=False))
        if not self.sock.poll(30_000):
            self.sock.close()
            self.sock = self._socket()
            raise TimeoutError("the salt-master did not answer the publish")
        reply = msgpack.unpackb(self.sock.recv(), raw=False)
        jid = reply.get("load", {}).get("jid") if isinstance(reply, dict) else None
        if not jid:
            raise RuntimeError(f"publish refused: {reply!r}")
        return str(jid)


# ---- rounds ---------------------------------------------------------------------------------

class Driver:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.pull = zmq.Context.instance().socket(zmq.PULL)
        self.pull.bind(args.report)
        self.swarm_pids: list[int] = []
        self.early: list[dict] = []  # job reports that arrived before their jid was known
        if args.drover:
            self.jobs = DroverJobs(args.drover, Path(args.token_file).read_text().strip())
        else:
            self.jobs = SaltJobs(args.salt, Path(args.root_key).read_text().strip())

    def wait_ready(self) -> None:
        seen, deadline = 0, time.time() + self.args.ready_timeout
        while seen < self.args.expect:
            if not self.pull.poll(max(0.0, deadline - time.time()) * 1000):
                sys.exit(f"the swarm did not sign in within {self.args.ready_timeout:.0f} s ({seen} ready)")
            msg = self.pull.recv_json()
            if msg["type"] == "ready":
                self.swarm_pids.append(msg["pid"])
                seen += msg["minions"] + msg["failed"]
                print(f"swarm process {msg['proc']} (pid {msg['pid']}): {msg['minions']} minions ready, "
                      f"{msg['failed']} failed, in {msg['seconds']:.1f} s", flush=True)
                if msg["failed"]:
                    sys.exit("some minions did not sign in")

    def round(self) -> tuple[float, int, float]:
        """One job to all: seconds from its start to the last acknowledged return, the returns acknowledged,
        and seconds from its start to the first minion that received it."""
        t0 = time.time()
        jid = self.jobs.start(self.args.tgt, self.args.fun)
        returned, reports, last, first = 0, 0, t0, float("inf")
        deadline = t0 + ROUND_TIMEOUT
        pending = [m for m in self.early if m["jid"] == jid]
        self.early = [m for m in self.early if m["jid"] != jid]
        while reports < len(self.swarm_pids):  # each swarm process reports a job once
            if pending:
                msg = pending.pop()
            elif self.pull.poll(max(0.0, deadline - time.time()) * 1000):
                msg = self.pull.recv_json()
            else:
                break
            if msg.get("type") != "job":
                continue
            if msg["jid"] != jid:
                self.early.append(msg)
                continue
            reports += 1
            returned += msg["acknowledged"]
            last = max(last, msg["last_acknowledged"])
            if msg["received"]:
                first = min(first, msg["first_received"])
        return last - t0, returned, first - t0

    def cpu(self) -> tuple[float, float]:
        server = sum(cpu_seconds(p) for p in process_tree(self.args.server_pid))
        swarm = sum(cpu_seconds(p) for p in self.swarm_pids)
        return server, swarm

    def run(self) -> dict:
        a = self.args
        for i in range(a.warmup):
            took, n, _ = self.round()
            print(f"warm-up {i + 1}: {n}/{a.expect} returns in {took:.3f} s", flush=True)
            time.sleep(a.gap)
        times, firsts, server_cpu, swarm_cpu, complete = [], [], [], [], 0
        own0, busy0, wall0 = time.process_time(), machine_busy_seconds(), time.time()
        first_server, first_swarm = s0, w0 = self.cpu()
        for i in range(a.rounds):
            took, n, first = self.round()
            time.sleep(a.gap)
            s1, w1 = self.cpu()
            times.append(took)
            firsts.append(first)
            server_cpu.append(s1 - s0)
            swarm_cpu.append(w1 - w0)
            complete += n == a.expect
            print(f"round {i + 1}: {n}/{a.expect} returns in {took:.3f} s (first publish received after "
                  f"{first:.3f} s); CPU server {s1 - s0:.2f} s, "
                  f"swarm {w1 - w0:.2f} s", flush=True)
            s0, w0 = s1, w1
        busy, wall = machine_busy_seconds() - busy0, time.time() - wall0
        driver_cpu = time.process_time() - own0
        others = busy - (s0 - first_server) - (w0 - first_swarm) - driver_cpu
        summary = {
            "minions": a.expect, "rounds": a.rounds, "complete_rounds": complete,
            "median_s": statistics.median(times), "min_s": min(times), "max_s": max(times),
            "first_received_median_s": statistics.median(firsts),
            "server_cpu_per_round_s": statistics.median(server_cpu),
            "swarm_cpu_per_round_s": statistics.median(swarm_cpu),
            "driver_cpu_s": driver_cpu,
            "other_processes_cores": others / wall,  # what else ran on the machine meanwhile, in cores
            "server_processes": len(process_tree(a.server_pid)), "swarm_processes": len(self.swarm_pids),
        }
        print(f"{a.fun} to {a.expect} minions, {complete}/{a.rounds} rounds complete: median "
              f"{summary['median_s']:.3f} s (min {summary['min_s']:.3f}, max {summary['max_s']:.3f}; first minion "
              f"reached after {summary['first_received_median_s']:.3f} s); CPU per round "
              f"(median): server {summary['server_cpu_per_round_s']:.2f} s in {summary['server_processes']} "
              f"processes, swarm {summary['swarm_cpu_per_round_s']:.2f} s; other processes used "
              f"{summary['other_processes_cores']:.2f} cores meanwhile", flush=True)
        if a.summary:
            Path(a.summary).write_text(json.dumps(summary) + "\n")
        return summary


def main(argv: list[str]) -> None:
    driver = Driver(parse_args(argv))
    driver.wait_ready()
    driver.run()


if __name__ == "__main__":
    main(sys.argv[1:])
