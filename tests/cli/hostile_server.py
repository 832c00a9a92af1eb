#!/usr/bin/env python3
"""A hostile tregd for tregc's tests: TLS on 127.0.0.1, one behaviour per run.

  drip      answers every request with its status line and headers one byte
            a second, forever (a client's --timeout must end it)
  kernels   answers GET /v1/reports/{hash} with a 2 MB Report declaring
            1,000,000 empty kernels (cheap on the wire, gigabytes unpacked)
  busy      answers 503 with Retry-After: 3600 (a client must not sleep past
            its --timeout)

usage: hostile_server.py MODE CERT KEY PORT_FILE
Writes the port it listens on to PORT_FILE, serves until killed.
"""
import socket
import ssl
import sys
import threading
import time


def report_with_kernels(n):
    # Report: field 1 schema_version = 1, field 4 target "gfx90a", then n empty
    # Kernel messages (field 12, length 0): two bytes each.
    return b"\x08\x01" + b"\x22\x06gfx90a" + b"\x62\x00" * n


def handle(conn, mode):
    try:
        conn.settimeout(30)
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        if mode == "drip":
            for ch in b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n":
                conn.sendall(bytes([ch]))
                time.sleep(1)
        elif mode == "kernels":
            body = report_with_kernels(1_000_000)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
                         b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
        elif mode == "busy":
            conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 3600\r\n"
                         b"Content-Length: 0\r\nConnection: close\r\n\r\n")
    except OSError:
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def main():
    mode, cert, key, port_file = sys.argv[1:5]
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    with open(port_file, "w") as f:
        f.write(str(srv.getsockname()[1]))
    while True:
        raw, _ = srv.accept()
        try:
            conn = ctx.wrap_socket(raw, server_side=True)
        except (ssl.SSLError, OSError):
            raw.close()
            continue
        threading.Thread(target=handle, args=(conn, mode), daemon=True).start()


if __name__ == "__main__":
    main()
