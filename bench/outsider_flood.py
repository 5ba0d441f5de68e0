#!/usr/bin/env python3
"""Outsiders for bench/outsiders.sh: connects to a job's ports until killed.

Usage: outsider_flood.py ROOT_PORT PID_FILE
       outsider_flood.py --decoy PID_FILE


Targets the rendezvous root at 127.0.0.1:ROOT_PORT (the job fixes it with
TRNCCL_COMM_ID; 0: none given) from before the job starts, and every TCP
port that the process whose pid PID_FILE holds listens on (a root on an
ephemeral port, which answers status queries all job long, its ranks'
bootstrap listeners and, during set-up, its tcp transport listeners; found
with `ss` every 100 ms). Every 10 ms, on each port: one connection that sends garbage,
one that sends a bootstrap hello and one a tcp transport hello with the
right magic and a random (wrong) secret; and up to HELD connections per
port that stay open, half silent, half trickling a hello's bytes one a
second. On SIGTERM it prints how many connections it opened and how many
trnccl closed while it held them.

--decoy: a stand-in for the job, for the flood to attack while the job
runs unattacked (what the attacker's own load costs on shared cores): it
listens on 5 ports, writes its pid into PID_FILE, and accepts and reads
every connection, closing it when the other end does, until killed.
"""
import os
import random
import re
import signal
import socket
import struct
import subprocess
import sys
import time

HELD = 16  # silent and trickling connections kept per port
BOOTSTRAP_MAGIC = 0x4F4C4C45484E5254  # "TRNHELLO"
TCP_MAGIC = 0x49485043544E5254  # "TRNTCPHI"


def bootstrap_hello():
    # magic, version, purpose (join the root), secret, rank, nranks; then a registration.
    return struct.pack("<QII16sii", BOOTSTRAP_MAGIC, 1, 1, os.urandom(16), 0, 4) + bytes(24)


def tcp_hello():
    # magic, version, connection index, job, secret, rank, nranks.
    return struct.pack("<QIIQ16sii", TCP_MAGIC, 1, 0, random.getrandbits(64), os.urandom(16), 0, 4)


def listening_ports(pid_file):
    try:
        with open(pid_file) as f:
            pid = int(f.read())
    except (OSError, ValueError):
        return set()  # the job has not started yet
    try:
        out = subprocess.run(["ss", "-ltnpH"], capture_output=True, text=True, timeout=2).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    ports = set()
    for line in out.splitlines():
        if f"pid={pid}," in line:
            match = re.search(r":(\d+)\s+\S+:\*", line)
            if match:
                ports.add(int(match.group(1)))
    return ports


def connect(port):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    except OSError:
        s.close()
        return None
    return s


class Held:
    """A connection kept open: silent, or trickling a hello a byte a second."""

    def __init__(self, sock, trickle):
        self.sock, self.trickle, self.sent, self.next = sock, trickle, 0, time.monotonic() + 1.0
        self.connected = False

    def check_connected(self):
        """False while connecting; raises when the port refused it."""
        if not self.connected:
            if self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                raise ConnectionRefusedError
            try:
                self.sock.getpeername()
                self.connected = True
            except OSError:
                pass
        return self.connected


def decoy(pid_file):
    import selectors

    sel = selectors.DefaultSelector()
    for _ in range(5):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(128)
        listener.setblocking(False)
        sel.register(listener, selectors.EVENT_READ, "listener")
    with open(pid_file + ".new", "w") as f:
        f.write(str(os.getpid()))
    os.rename(pid_file + ".new", pid_file)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        for key, _ in sel.select():
            if key.data == "listener":
                try:
                    conn, _ = key.fileobj.accept()
                except OSError:
                    continue
                conn.setblocking(False)
                sel.register(conn, selectors.EVENT_READ, "conn")
                continue
            try:
                if key.fileobj.recv(4096):
                    continue
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                pass
            sel.unregister(key.fileobj)
            key.fileobj.close()


def main():
    if sys.argv[1] == "--decoy":
        return decoy(sys.argv[2])
    root_port, pid_file = int(sys.argv[1]), sys.argv[2]
    counts = {"opened": 0, "dropped_by_trnccl": 0}
    held = {}  # port -> [Held]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    fixed = {root_port} if root_port else set()
    ports, refreshed = fixed, 0.0
    while not stop:
        now = time.monotonic()
        if now - refreshed > 0.1:
            ports = fixed | listening_ports(pid_file)
            refreshed = now
        for port in ports:
            for payload in (os.urandom(64), bootstrap_hello(), tcp_hello()):
                s = connect(port)
                if s is None:
                    continue
                counts["opened"] += 1
                try:
                    s.send(payload)
                except OSError:
                    pass  # not connected yet or refused: what matters is the attempt
                s.close()
            mine = held.setdefault(port, [])
            while len(mine) < HELD:
                s = connect(port)
                if s is None:
                    break
                counts["opened"] += 1
                mine.append(Held(s, bootstrap_hello() if len(mine) % 2 else b""))
            for h in list(mine):
                try:
                    if not h.check_connected():
                        continue
                    if h.trickle and h.sent < len(h.trickle) and now >= h.next:
                        h.sent += h.sock.send(h.trickle[h.sent : h.sent + 1])
                        h.next = now + 1.0
                    if h.sock.recv(1) == b"":
                        raise ConnectionResetError
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    counts["dropped_by_trnccl"] += h.connected  # a refused connect is not a drop
                    h.sock.close()
                    mine.remove(h)
        time.sleep(0.01)
    print(f"{counts['opened']} {counts['dropped_by_trnccl']}")


if __name__ == "__main__":
    main()
