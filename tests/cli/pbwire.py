"""Hand-rolled protobuf for the few treg.v1 messages the tregd tests need
(no python protobuf needed), and the report keys of proto/report_key.h
computed independently of the C code that both ends share."""
import hashlib
import sys

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)

def field_bytes(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data

def parse(buf):
    """field number -> list of values (int for varints, bytes otherwise)."""
    out, i = {}, 0
    while i < len(buf):
        key, i = read_varint(buf, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = read_varint(buf, i)
        elif wt == 2:
            n, i = read_varint(buf, i)
            v = buf[i:i + n]
            if len(v) != n:
                raise ValueError("truncated")
            i += n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.setdefault(num, []).append(v)
    return out

def read_varint(buf, i):
    n = shift = 0
    while True:
        b = buf[i]
        i += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return n, i

def s(msg, num, default=""):
    return msg[num][0].decode() if num in msg else default

def report_line(rep):
    kernels = [s(parse(k), 1) for k in rep.get(12, [])]
    return "hash=%s target=%s file=%s kernels=%s" % (s(rep, 2), s(rep, 4), s(rep, 3), ",".join(kernels))

def text_sha(data):
    """Report.triton_json_sha256 / amdgcn_sha256: "" for no text."""
    return hashlib.sha256(data).hexdigest() if data else ""

def digest_fields(tag, fields):
    """SHA-256 of the tag and its NUL, then each field as "<len>:<bytes>"."""
    h = hashlib.sha256(tag.encode() + b"\0")
    for f in fields:
        f = f.encode() if isinstance(f, str) else f
        h.update(b"%d:" % len(f) + f)
    return h.hexdigest()

def inputs_digest(entry, json_sha, amdgcn_sha, ir_sha="", ttgir_sha=""):
    """Fields added later (the LLVM IR's, the TTGIR's) count only when present."""
    fields = [entry, json_sha, amdgcn_sha]
    if ir_sha or ttgir_sha:
        fields.append(ir_sha)
    if ttgir_sha:
        fields.append(ttgir_sha)
    return digest_fields("treg inputs 1", fields)

def report_key(hash_, inputs, analyzer_version, llvm_version):
    return digest_fields("treg report key 1", [hash_, inputs, analyzer_version, llvm_version])

def read_opt(path):
    return b"" if path == "-" else open(path, "rb").read()

def main():
    cmd = sys.argv[1]
    def rows(rep):
        return sum(len(parse(k).get(23, [])) for k in rep.get(12, []))

    def without_rows(rep):
        out = dict(rep)
        out[12] = [{n: v for n, v in parse(k).items() if n not in (23, 29)} for k in rep.get(12, [])]
        return out

    if cmd == "upload":  # upload CODE_FILE NAME [reanalyze] [omit] [pad=FIELD:BYTES] [host=BYTES|NAME]
        #                    [json=FILE] [amdgcn=FILE] [entry=BUNDLE_ENTRY] [ttgir=FILE]
        data = open(sys.argv[2], "rb").read()
        host = b"testhost"
        extra = b""
        for a in sys.argv[4:]:
            if a.startswith("host="):
                host = b"h" * int(a[5:]) if a[5:].isdigit() else a[5:].encode()
            elif a.startswith("json="):
                extra += field_bytes(3, open(a[5:], "rb").read())
            elif a.startswith("amdgcn="):
                extra += field_bytes(4, open(a[7:], "rb").read())
            elif a.startswith("entry="):
                extra += field_bytes(8, a[6:].encode())
            elif a.startswith("ttgir="):
                extra += field_bytes(10, open(a[6:], "rb").read())
        body = field_bytes(1, data) + field_bytes(2, sys.argv[3].encode()) + field_bytes(5, host) + extra
        for a in sys.argv[4:]:
            if a.startswith("pad="):  # an unknown (or repeated) field of that many bytes
                num, size = map(int, a[4:].split(":"))
                body += field_bytes(num, b"\0" * size)
        if "reanalyze" in sys.argv[4:]:
            body += bytes([0x30, 1])
        if "omit" in sys.argv[4:]:
            body += bytes([0x38, 1])
        sys.stdout.buffer.write(body)
    elif cmd == "sources":  # sources HASH INPUTS PATH TEXT_FILE: a SourcesRequest, to stdout
        text = open(sys.argv[5], "rb").read()
        f = field_bytes(1, sys.argv[4].encode()) + field_bytes(2, text)
        sys.stdout.buffer.write(field_bytes(1, sys.argv[2].encode()) + field_bytes(2, sys.argv[3].encode())
                                + field_bytes(3, f))
    elif cmd == "inputs":  # inputs BUNDLE_ENTRY JSON_FILE|- AMDGCN_FILE|- [TTGIR_FILE|-]: the inputs digest
        ttgir = text_sha(read_opt(sys.argv[5])) if len(sys.argv) > 5 else ""
        print(inputs_digest(sys.argv[2], text_sha(read_opt(sys.argv[3])), text_sha(read_opt(sys.argv[4])),
                            "", ttgir))
    elif cmd == "versions":  # versions HEALTH_FILE: the analyzer's and LLVM's versions
        h = parse(open(sys.argv[2], "rb").read())
        print(s(h, 2), s(h, 3))
    elif cmd == "key":  # key HASH INPUTS ANALYZER_VERSION LLVM_VERSION: the store's key
        print(report_key(*sys.argv[2:6]))
    elif cmd == "report-key":  # report-key REPORT_FILE: the key a stored report's own fields give
        rep = parse(open(sys.argv[2], "rb").read())
        print(report_key(s(rep, 2), inputs_digest(s(rep, 16), s(rep, 18), s(rep, 19), s(rep, 22), s(rep, 25)),
                         s(rep, 9), s(rep, 10)))
    elif cmd == "meta":  # meta report|upload-response FILE: whose upload, and the occupancy
        msg = parse(open(sys.argv[3], "rb").read())
        rep = parse(msg[1][0]) if sys.argv[2] == "upload-response" else msg
        occ = [parse(parse(k).get(11, [b""])[0]) for k in rep.get(12, [])]
        print("team=%s file=%s host=%s json=%s waves=%s" % (
            s(rep, 20), s(rep, 3), s(rep, 14), s(rep, 18)[:12],
            ",".join(str(o.get(9, o.get(1, [0]))[0]) for o in occ)))
    elif cmd == "list-teams":  # list-teams FILE: one line per row, hash team inputs file
        for r in parse(open(sys.argv[2], "rb").read()).get(1, []):
            r = parse(r)
            print(s(r, 1), s(r, 8) or "-", s(r, 9) or "-", s(r, 2) or "-")
    elif cmd == "rows":  # rows report|upload-response FILE: per-instruction rows in it
        msg = parse(open(sys.argv[3], "rb").read())
        print(rows(parse(msg[1][0]) if sys.argv[2] == "upload-response" else msg))
    elif cmd == "same-but-rows":  # same-but-rows FULL_REPORT REPORT: equal but for rows
        a, b = (parse(open(f, "rb").read()) for f in sys.argv[2:4])
        print("same" if without_rows(a) == without_rows(b) else "different")
    else:  # decode KIND FILE
        msg = parse(open(sys.argv[2], "rb").read())
        if cmd == "upload-response":
            print(report_line(parse(msg[1][0])), "stored_before=%d" % msg.get(2, [0])[0])
        elif cmd == "report":
            print(report_line(msg))
        elif cmd == "list":
            rows = [parse(r) for r in msg.get(1, [])]
            print("count=%d next=%d hashes=%s" % (len(rows), msg.get(2, [0])[0],
                                                   ",".join(s(r, 1) for r in rows)))
        elif cmd == "error":
            print("status=%d message=%s" % (msg.get(1, [0])[0], s(msg, 2)))
        elif cmd == "sources-response":
            print("stored=%d kept_older=%d" % (msg.get(1, [0])[0], msg.get(3, [0])[0]))
        elif cmd == "health":
            print("status=%s workers=%d reports=%d" % (s(msg, 1), msg.get(4, [0])[0], msg.get(6, [0])[0]))


if __name__ == "__main__":
    main()
