#!/usr/bin/env python3
"""A DNS server for one test: answers A queries for the names given with
127.0.0.1 over UDP on 127.0.0.1, NOERROR without answers for their other
types, NXDOMAIN for any other name.  Writes its port to PORTFILE and serves
until killed.  Standard library only (RFC 1035's wire format, 4.1).

usage: dns_stub.py PORTFILE NAME...
"""
import socket
import struct
import sys


def question(msg):
    """(name, qtype, end offset) of the first question."""
    i, labels = 12, []
    while msg[i]:
        n = msg[i]
        labels.append(msg[i + 1:i + 1 + n].decode("ascii").lower())
        i += 1 + n
    qtype, _ = struct.unpack_from(">HH", msg, i + 1)
    return ".".join(labels), qtype, i + 5


def main():
    portfile, names = sys.argv[1], {n.lower() for n in sys.argv[2:]}
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    with open(portfile, "w") as f:
        f.write(str(s.getsockname()[1]))
    while True:
        msg, peer = s.recvfrom(512)
        if len(msg) < 17:
            continue
        try:
            name, qtype, end = question(msg)
        except (IndexError, struct.error, UnicodeDecodeError):
            continue
        qid = msg[:2]
        known = name in names
        answer = known and qtype == 1
        flags = 0x8180 if known else 0x8183  # response, RD, RA; rcode NXDOMAIN
        reply = qid + struct.pack(">HHHHH", flags, 1, 1 if answer else 0, 0, 0) + msg[12:end]
        if answer:  # the question's name by pointer, A IN, ttl 60, 127.0.0.1
            reply += struct.pack(">HHHIH", 0xC00C, 1, 1, 60, 4) + socket.inet_aton("127.0.0.1")
        s.sendto(reply, peer)


if __name__ == "__main__":
    main()
