#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a vtest server's GET_CAPSET answers (docs/security.md).

Usage: vtest_capset_check.py SOCKET {on|off}

"on":  the amdkfd context type is enabled: capset 10 version 1 is valid and
       64 bytes that pass the protocol's checks, with every reserved byte 0;
       versions above it are answered "not available", version 0 (which
       virglrenderer lets through as "not above the highest") either so or
       with 64 zero bytes.
"off": the server was started without it: capset 10 is "not available",
       a one-dword answer, for every version.
Either way an answer carries nothing but its header and payload.
Exit 0 when every check holds, 1 with a message otherwise.
"""
import socket
import struct
import sys

CREATE_RENDERER, PING_PROTOCOL_VERSION, PROTOCOL_VERSION, GET_CAPSET = 8, 10, 11, 16
CAPSET_AMDKFD = 10
CAPSET_BYTES = 64
CAPSET_FMT = "<4IQ10I"  # struct vkfd_capset, src/proto/vkfd_protocol.h


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            fail("server closed the connection")
        buf += chunk
    return buf


def send(s, cmd, payload=b""):
    s.sendall(struct.pack("<2I", len(payload) // 4, cmd) + payload)


def recv(s, cmd):
    length, got = struct.unpack("<2I", recv_exact(s, 8))
    if got != cmd:
        fail("reply to %d carries command %d" % (cmd, got))
    return recv_exact(s, length * 4)


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    name = b"capset-check\0"
    s.sendall(struct.pack("<2I", len(name), CREATE_RENDERER) + name)
    send(s, PING_PROTOCOL_VERSION)
    recv(s, PING_PROTOCOL_VERSION)
    send(s, PROTOCOL_VERSION, struct.pack("<I", 3))
    (ver,) = struct.unpack("<I", recv(s, PROTOCOL_VERSION))
    if ver < 3:
        fail("server speaks vtest protocol %d" % ver)
    return s


def get_capset(s, cid, version):
    send(s, GET_CAPSET, struct.pack("<2I", cid, version))
    data = recv(s, GET_CAPSET)
    if len(data) < 4:
        fail("GET_CAPSET %d/%d: empty answer" % (cid, version))
    (valid,) = struct.unpack("<I", data[:4])
    return valid, data[4:]


def check_unavailable(s, version):
    valid, payload = get_capset(s, CAPSET_AMDKFD, version)
    if valid != 0 or payload:
        fail("capset 10 version %d: valid=%d with %d payload bytes %s, want not available"
             % (version, valid, len(payload), payload[:16].hex()))


def check_zero_or_unavailable(s, version):
    valid, payload = get_capset(s, CAPSET_AMDKFD, version)
    if valid == 0 and not payload:
        return
    if valid != 1 or payload != bytes(len(payload)):
        fail("capset 10 version %d: valid=%d, payload %s, want not available or zeros"
             % (version, valid, payload[:16].hex()))


def check_available(s):
    valid, payload = get_capset(s, CAPSET_AMDKFD, 1)
    if valid != 1 or len(payload) != CAPSET_BYTES:
        fail("capset 10 version 1: valid=%d, %d bytes" % (valid, len(payload)))
    f = struct.unpack(CAPSET_FMT, payload)
    wire, vmin, vmax, ctx_type = f[0:4]
    reserved = f[-1]
    if not (1 <= vmin <= vmax) or wire == 0 or ctx_type == 0:
        fail("capset 10: implausible header %s" % (f[0:4],))
    if reserved != 0:
        fail("capset 10: reserved word 0x%x" % reserved)


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("on", "off"):
        print(__doc__)
        return 2
    s = connect(sys.argv[1])
    if sys.argv[2] == "on":
        check_available(s)
        check_zero_or_unavailable(s, 0)
        for v in (2, 0xFFFFFFFF):
            check_unavailable(s, v)
    else:
        for v in (0, 1, 2):
            check_unavailable(s, v)
    s.close()
    print("OK: capset answers of %s (amdkfd %s)" % (sys.argv[1], sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
