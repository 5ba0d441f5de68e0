#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into corpus/<target>/ (run from
anywhere; the files are committed). Seeds are valid inputs of each parser, so
the fuzzer starts past the magic numbers and secrets; the layouts mirror the
C++ structs (host byte order, x86-64)."""
import os
import json
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
TOPOLOGIES = os.path.join(HERE, "..", "..", "topologies")
SECRET = b"fuzz-secret-key!"  # fuzz_bootstrap_messages.cc's kSecret


def fnv1a(text):
    h = 1469598103934665603
    for c in text.encode():
        h = ((h ^ c) * 1099511628211) % (1 << 64)
    return h


def wire_v4(ip, port):  # net::WireAddress
    return struct.pack("<BBHI", 4, 0, port, 0) + bytes(ip) + bytes(12)


def wire_v6(ip16, port, scope=0):
    return struct.pack("<BBHI", 6, 0, port, scope) + bytes(ip16)


def hello(purpose, rank, nranks):  # core::wire::Hello
    return struct.pack("<QII", 0x4F4C4C45484E5254, 1, purpose) + SECRET + struct.pack("<ii", rank, nranks)


def unique_id(root):  # core::wire::IdLayout
    return struct.pack("<QII", 0x44494C43434E5254, 1, 0) + SECRET + root + bytes(72)


def tcp_frame(kind, seq, tag=0, total=0, offset=0, length=0, number=0):  # tcp::FrameHeader
    return struct.pack("<IB3xQQQQQQQ", 0x464E5254, kind, fnv1a("fuzz"), seq, tag, total, offset, length, number)


def ofi_control(kind, tag=0, size=0, send=0, receive=0, first=0, count=0, credits=0, payload=b"",
                sealed=False, rail=0, seq=0, acked=0, credit_rail=0):  # ofi::ControlHeader, then the flag byte
    def pack(checksum):                                                     # fuzz_ofi_control reads
        return struct.pack("<IIQQQQIIIIIIQQII", 0x49464F54, kind, tag, size, send, receive, first, count, credits,
                           checksum, 0, rail, seq, acked, credit_rail, 0) + payload
    message = pack(zlib.crc32(pack(0)) if sealed else 0)
    return message + (b"\x01" if sealed else b"\x00")


def tcp_hello(rank, nranks, socket=0):  # tcp::Hello
    return struct.pack("<QIIQ", 0x49485043544E5254, 1, socket, fnv1a("fuzz")) + SECRET + struct.pack("<ii", rank, nranks)


def trace_dump(rank, nranks, ops):  # src/runtime/recorder_dump.cc's format
    return json.dumps({"format": "trnccl-flight-recorder", "version": 1, "comm": "c0ffee", "commName": "",
                       "rank": rank, "nranks": nranks, "pid": 100 + rank, "host": "h", "reason": "timeout",
                       "capacity": 64, "dumped_ns": 0, "ops": ops}).encode()


def trace_op(seq, collective, state, wait_peer=None):
    op = {"seq": seq, "collective": collective, "count": 1024, "type": "float32", "op": "sum", "root": None,
          "algorithm": "ring", "state": state, "issued_ns": 1, "started_ns": 2, "waiting_ns": 3, "ended_ns": 0}
    if wait_peer is not None:
        op["waitingFor"] = {"peer": wait_peer, "step": 2, "direction": "recv"}
    return op


def seeds():
    loopback = wire_v4([127, 0, 0, 1], 40123)
    yield "fuzz_bootstrap_messages", {
        "join_root": hello(1, 0, 4) + loopback + struct.pack("<Q", 30000),
        "peer_link": hello(2, 3, 4),
        "frame_header": struct.pack("<IiQ", 2, 7, 64),
        "reply_table": struct.pack("<iI", 0, 2 * 24) + struct.pack("<H", 2),
        "reply_error": struct.pack("<iI", 5, 40) + struct.pack("<H", 2),
    }
    yield "fuzz_unique_id", {
        "ipv4": unique_id(loopback),
        "ipv6_link_local": unique_id(wire_v6([0xFE, 0x80] + [0] * 13 + [1], 5000, 3)),
    }
    eager, rts, cts, nack, cancel, data, ack = range(1, 8)
    yield "fuzz_tcp_frame", {
        "eager": tcp_frame(eager, 1, tag=9, total=100, length=100),
        "rts": tcp_frame(rts, 2, tag=9, total=1 << 20),
        "cts": tcp_frame(cts, 2),
        "nack": tcp_frame(nack, 3, total=4096),
        "cancel": tcp_frame(cancel, 4, total=512),
        "data": tcp_frame(data, 2, tag=9, total=1 << 20, offset=512 * 1024, length=512 * 1024),
        "data_numbered": tcp_frame(data, 2, tag=9, total=1 << 20, length=512 * 1024, number=17),
        "ack": tcp_frame(ack, 5),
    }
    o_eager, o_rts, o_cts, o_nack, o_credit, o_bye, o_done, o_ping, o_pong = range(1, 10)
    yield "fuzz_ofi_control", {
        "eager": ofi_control(o_eager, tag=9, size=5, send=1, credits=2, payload=b"hello"),
        "eager_sealed": ofi_control(o_eager, tag=9, size=5, send=1, payload=b"hello", sealed=True),
        "rts": ofi_control(o_rts, tag=9, size=1 << 20, send=2),
        "cts_sealed": ofi_control(o_cts, send=2, receive=4, first=0, count=1, sealed=True),
        "nack": ofi_control(o_nack, size=4096, send=3),
        "credit": ofi_control(o_credit, credits=4),
        "bye": ofi_control(o_bye, size=12),
        # Over several rails: numbered, acknowledged, credits for another rail.
        "cts_rail1": ofi_control(o_cts, send=2, receive=4, first=3, count=1, size=2, rail=1, seq=7, acked=5,
                                 credits=1, credit_rail=1),
        "done": ofi_control(o_done, send=2, size=1 << 20, seq=8, acked=5),
        "ping": ofi_control(o_ping, acked=5),
        "pong_sealed": ofi_control(o_pong, acked=6, sealed=True),
    }
    yield "fuzz_tcp_hello", {"rank0": tcp_hello(0, 8), "rank2_socket1": tcp_hello(2, 8, 1)}
    # FuzzedDataProvider takes integers from the end: the last byte picks the
    # parser (fuzz_env) or the rank count (fuzz_rank_order: byte - 1).
    yield "fuzz_env", {
        "int": b"0x400" + struct.pack("<qq", 1 << 40, 0) + b"\x00",
        "bool": b"yes\x01",
        "algo": b"allreduce:torus2d,ring;allgather:^mesh\x02",
        "faults": b"delay=500:reorder:seed=7\x03",
        "ifname": b"^=eth0,docker\x04",
        "address": b"[fe80::1%3]:5000\x05",
        "topo": b"trn1.32xlarge:4\x06",
    }
    yield "fuzz_rank_order", {
        "core": b"core\x09", "chip": b"chip\x05", "list": b"0, 3, 5,1\x05",
    }
    done0 = trace_op(0, "allreduce", "done")
    yield "fuzz_trace_dumps", {
        "never_entered": trace_dump(0, 2, [done0, trace_op(1, "allreduce", "waiting", 1)]) + b"\n---\n" +
                         trace_dump(1, 2, [done0]),
        "mismatch": trace_dump(0, 2, [trace_op(0, "allreduce", "waiting", 1)]) + b"\n---\n" +
                    trace_dump(1, 2, [trace_op(0, "allgather", "waiting", 0)]),
        "all_done": trace_dump(0, 1, [done0]),
    }
    yield "fuzz_topology", {
        name: open(os.path.join(TOPOLOGIES, name), "rb").read()
        for name in sorted(os.listdir(TOPOLOGIES)) if name.endswith(".json")
    }


for target, files in seeds():
    directory = os.path.join(HERE, "corpus", target)
    # Crash inputs found by fuzzing stay: only seeds are rewritten.
    os.makedirs(directory, exist_ok=True)
    for name, content in files.items():
        with open(os.path.join(directory, "seed-" + name), "wb") as f:
            f.write(content)
