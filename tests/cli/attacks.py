"""Hostile clients against a running tregd on 127.0.0.1, one attack at a
time, each while a prober asks GET /v1/health over a fresh TLS connection
every 100 ms and a sampler reads the resident memory of tregd and of its
workers from /proc.  Prints one line per attack with what the server did,
its peak RSS and the health endpoint's worst latency, and exits 1 when an
attack got an answer other than the fixed behaviour or a bound was passed.

usage: attacks.py PORT CA_PEM TOKEN TREGD_PID DWARF_BOMB_HSACO [ATTACK...]
The bounds are loose on purpose (the suite also runs under ASan): they
tell a fixed server (tens of MB, tens of ms) from the unfixed one (GBs,
seconds) and nothing finer; bench/ measures."""
import os
import re
import socket
import ssl
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import field_bytes as field  # noqa: E402

PORT, CA, TOKEN, PID, BOMB = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
WANT = sys.argv[6:]
CTX = ssl.create_default_context(cafile=CA)
MiB = 1 << 20


def connect(timeout=30):
    raw = socket.create_connection(("127.0.0.1", int(PORT)), timeout=timeout)
    return CTX.wrap_socket(raw, server_hostname="127.0.0.1")


def read_reply(s, limit=1 << 20):
    """Status code of the first reply on s (0 when the connection ends first)."""
    got = b""
    try:
        while b"\r\n" not in got and len(got) < limit:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except (ConnectionError, ssl.SSLError, OSError):
        pass
    line = got.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) >= 2 and line[1].isdigit() else 0


def post(body, token=TOKEN, path="/v1/analyze"):
    s = connect(60)
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/x-protobuf\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    try:
        s.sendall(head + body)
    except (ConnectionError, ssl.SSLError, OSError):
        pass
    code = read_reply(s)
    s.close()
    return code


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


class Watch:
    """Samples RSS and health latency while an attack runs."""

    def __init__(self):
        self.stop = threading.Event()
        self.server_peak = self.worker_peak = 0
        self.latencies = []
        self.health_failures = 0
        self.threads = [threading.Thread(target=self.sample), threading.Thread(target=self.probe)]

    def sample(self):
        while not self.stop.is_set():
            self.server_peak = max(self.server_peak, rss_kib(PID))
            for c in children(PID):
                self.worker_peak = max(self.worker_peak, rss_kib(c))
            time.sleep(0.02)

    def probe(self):
        while not self.stop.is_set():
            t = time.monotonic()
            try:
                s = connect(10)
                s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                ok = read_reply(s) == 200
                s.close()
            except (ConnectionError, ssl.SSLError, OSError):
                ok = False
            self.latencies.append(time.monotonic() - t)
            self.health_failures += not ok
            time.sleep(0.1)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        time.sleep(0.2)  # one more sample after the attack
        self.stop.set()
        for t in self.threads:
            t.join()


# ---- the attacks: each returns (ok, what happened) ----

def f5_unauthenticated_bodies():
    """24 clients announce 60 MB each without a valid token: each gets its
    401 before it sends a byte of body (before: the body was buffered first,
    1.5 GB for 24)."""
    results = []

    def one(i):
        s = connect(30)
        token = "wrong" if i % 2 else ""
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        s.sendall((f"POST /v1/analyze HTTP/1.1\r\nHost: x\r\n{auth}"
                   "Content-Length: 60000000\r\n\r\n").encode())
        s.settimeout(10)
        results.append(read_reply(s))  # no body sent: a 401 now, or a hang
        s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = results.count(401) == 24
    return ok, f"{results.count(401)}/24 answered 401 before any body byte"


def f5_split_heads():
    """The gate cannot be walked around: a head sent in pieces (evhttp would
    parse its lines as they come), or with bare LF line ends, still gets its
    401 before any body byte; a small unauthenticated body on a kept-alive
    connection is dropped and the next request on it is answered."""
    outcomes = []
    s = connect(30)
    s.settimeout(10)
    for piece in (b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\n", b"Content-Length: 60000000\r\n",
                  b"X-Pad: 1\r\n", b"\r\n"):
        s.sendall(piece)
        time.sleep(0.1)
    outcomes.append(read_reply(s))
    s.close()
    s = connect(30)
    s.settimeout(10)
    s.sendall(b"POST /v1/analyze HTTP/1.1\nHost: x\nContent-Length: 60000000\n\n")
    outcomes.append(read_reply(s))
    s.close()
    s = connect(30)
    s.settimeout(10)
    s.sendall(b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789"
              b"GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n")
    got = b""
    while got.count(b"HTTP/1.1 ") < 2:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    outcomes += [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", got)]
    return outcomes == [401, 401, 401, 200], f"answers {outcomes} (want 401, 401, 401 then 200)"


def f5_unauthenticated_streams():
    """The same 60 MB sent in full by 8 clients without a token: the server
    answers 401 and drops the connection; its memory does not grow by the
    bodies."""
    codes = []
    chunk = b"\0" * MiB

    def one():
        s = connect(30)
        s.sendall(b"POST /v1/analyze HTTP/1.1\r\nHost: x\r\nContent-Length: 62914560\r\n\r\n")
        try:
            for _ in range(60):
                s.sendall(chunk)
        except (ConnectionError, ssl.SSLError, OSError):
            pass
        codes.append(read_reply(s))
        s.close()

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # A reset can beat the 401 to the client: the bound that matters is memory.
    return all(c in (401, 0) for c in codes), f"answers {sorted(set(codes))}"


def f6_connection_flood():
    """One address opens 48 TLS connections and keeps them: tregd (started
    with --max-connections-per-address 32) completes 32 handshakes and
    refuses the rest, and once they close the address is served again
    (before: idle connections could take every descriptor)."""
    held, refused = [], 0
    for _ in range(48):
        try:
            held.append(connect(10))
        except (ssl.SSLError, ConnectionError, OSError):
            refused += 1
    n = len(held)
    for c in held:
        c.close()
    time.sleep(0.3)
    s = connect(10)
    s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    after = read_reply(s)
    s.close()
    # The health prober (same address) may hold one of the 32 meanwhile.
    return n in (31, 32) and refused == 48 - n and after == 200, \
        f"{n} connections held, {refused} refused; then health {after}"


def f3_unknown_fields():
    """A 60 MB UploadRequest of unknown fields, with a valid token: 400 at
    once (before: 2.5 GB and the loop blocked for seconds)."""
    body = field(99, b"\0" * (60 * MiB))
    code = post(body)
    return code == 400, f"HTTP {code}"


def f4_long_names():
    """Three uploads whose file_name is 30 MB: 400 each (before: stored,
    and a listing of 20 took 629 MB)."""
    body = field(1, b"\x7fELF") + field(2, b"n" * (30 * MiB))
    codes = [post(body) for _ in range(3)]
    return codes == [400] * 3, f"HTTP {codes}"


def f2_dwarf_bomb():
    """A code object whose DWARF inflates to 1 GiB: analyzed without its
    source lines (lines_note), the worker's memory bounded (before: 2.1 GB)."""
    with open(BOMB, "rb") as f:
        data = f.read()
    body = field(1, data) + field(2, b"dwarf-bomb.hsaco") + bytes([0x30, 1])  # reanalyze
    code = post(body)
    return code == 200, f"HTTP {code}"


ATTACKS = [f5_unauthenticated_bodies, f5_split_heads, f5_unauthenticated_streams,
           f6_connection_flood, f3_unknown_fields,
           f4_long_names, f2_dwarf_bomb]
# Peak RSS bounds over the idle server, in MiB: server, one worker.
BOUNDS = {"f5_unauthenticated_bodies": (64, 0), "f5_split_heads": (64, 0),
          "f6_connection_flood": (64, 0), "f5_unauthenticated_streams": (96, 0),
          "f3_unknown_fields": (200, 0), "f4_long_names": (160, 0), "f2_dwarf_bomb": (64, 400)}
HEALTH_MAX_S = 3.0

failed = 0
for attack in ATTACKS:
    if WANT and attack.__name__ not in WANT:
        continue
    # Growth is over the memory held just before the attack: glibc (and
    # ASan's quarantine) may keep what an earlier one freed.
    base_server = rss_kib(PID)
    base_worker = max([rss_kib(c) for c in children(PID)] or [0])
    with Watch() as w:
        t = time.monotonic()
        ok, what = attack()
        took = time.monotonic() - t
    grow_s = (w.server_peak - base_server) / 1024
    grow_w = (w.worker_peak - base_worker) / 1024
    bound_s, bound_w = BOUNDS[attack.__name__]
    worst = max(w.latencies) if w.latencies else float("inf")
    problems = []
    if not ok:
        problems.append("wrong answer")
    if grow_s > bound_s:
        problems.append(f"server grew {grow_s:.0f} MiB > {bound_s}")
    if bound_w and grow_w > bound_w:
        problems.append(f"a worker grew {grow_w:.0f} MiB > {bound_w}")
    # The flood comes from the prober's own address: its refusals are the point.
    if (w.health_failures and attack is not f6_connection_flood) or worst > HEALTH_MAX_S:
        problems.append(f"health: {w.health_failures} failures, worst {worst:.2f} s")
    print(f"{attack.__name__}: {what}; {took:.1f} s; server peak +{grow_s:.0f} MiB "
          f"(of {w.server_peak // 1024} MiB), worker peak +{grow_w:.0f} MiB; health "
          f"{len(w.latencies)} probes, worst {worst * 1000:.0f} ms"
          + (f"; FAIL: {', '.join(problems)}" if problems else ""))
    failed += bool(problems)
sys.exit(1 if failed else 0)
