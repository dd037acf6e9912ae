#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""Seed corpus of fuzz_dispatch: sessions written in its input format.

    tests/fuzz/gen_dispatch_corpus.py [DIR]   (default: corpus/fuzz_dispatch)

Each seed reaches a path the fuzzer would take long to find by itself:
a datagram sent and answered, a send that waits for its time, an error
queued for IP_RECVERR and taken with WIRE_ERRQ, a socket attached with a
proof, a process's state arena named again by its token (or a forged
one), a broker socket bound again, a reload, descriptors passed, raw
frames.  The format is
fuzz_dispatch.c's: 4 bytes of configuration, then operations (an opcode
byte, its arguments); keep the two in step.
"""
import hashlib
import os
import sys

OPS = ["connect", "hello", "open", "bind", "connect_sock", "send", "setopt",
       "getopt", "keepid", "attach", "proof", "broker_bind", "simple",
       "rawframe", "passfd", "answer4", "answer6", "forge", "close_client",
       "close_fd", "clock", "arena", "knob", "reload", "read"]
NOTURN = 0xE0           # added to an opcode: no turn of the loop after it
IP_RECVERR, IPV6_RECVERR, SO_BROADCAST = 10, 18, 1   # in fuzz_dispatch's opts[]
SO_ERROR, SO_TIMESTAMP = 8, 3
K_DATA, K_KSOCK, K_KOLD, K_LIVE = range(4)
# op_simple's requests
DETACH, GETNAME, GETPEER, SHUTDOWN, STATS, TABLE, ERRQ = range(7)
# HELLO's arena token: the process's own, another's (+ its slot << 2),
# none, forged (16 bytes follow)
TOK_OWN, TOK_OF, TOK_NONE, TOK_FORGED = range(4)


def config(raw_compat=False, no_keep=False, relay_1000=False, groups_1000=False,
           nets=0, socks=0, conns=0, idents=0, rate=3, ival=0, req=0,
           broker4=False, broker6=False, no_v6=False, loopback=False, nofile=0):
    """rate 3 is "rate = 0" (no limit): most seeds do not want to wait."""
    a = raw_compat | no_keep << 1 | relay_1000 << 2 | groups_1000 << 3 | nets << 4
    b = socks | conns << 3 | idents << 5
    c = rate | ival << 3 | req << 5
    d = broker4 | broker6 << 1 | no_v6 << 2 | loopback << 3 | nofile << 4
    return [a, b, c, d]


def op(name, *args, turn=True):
    return [OPS.index(name) + (0 if turn else NOTURN)] + list(args)


def u16(v):
    return [v & 0xff, v >> 8]


def client(how=0, who=0):
    """how: 0 or 1 socketpair, 2 listener, 3 another namespace;
    who: 0 this uid, 1 uid 1000, 2 uid 1001."""
    return op("connect", how, who)


def hello(c=0, turn=True, tok=TOK_OWN, of=0, forged=None):
    out = op("hello", c, 0, tok | (of << 2 if tok == TOK_OF else 0),
             turn=turn)
    return out + ((forged or list(range(100, 116))) if tok == TOK_FORGED
                  else [])


def open_(c=0, v6=False, raw=False):
    return op("open", c, (1 if v6 else 0) | (0x20 if raw else 0))


def addr(k=0):
    """k: index in addrs4/addrs6 (0 loopback, 1 local, 2 remote, 4 group)."""
    return [k]


def send(c=0, h=0, k=0, plen=16, dontwait=False, ctl=None, turn=True,
         noname=False, slot=False):
    """slot: answered in the connection's answer slot (WIRE_RQ_SLOT)."""
    how = (1 if dontwait else 0) | (0x10 if ctl else 0) | \
        (8 if noname else 0) | (0x20 if slot else 0)
    out = op("send", c, h, how, 0, plen, 0x34, 0x12, turn=turn)
    return out + ([] if noname else addr(k)) + (ctl or [])


def setopt(c, h, k, v):
    return op("setopt", c, h, k, 0, v)


def answer(v6=False, error=False, ifindex=1, code=0):
    """An Echo Reply, or Destination Unreachable with code."""
    how = (0 if error else 1) | ifindex << 4
    name = "answer6" if v6 else "answer4"
    if v6:
        body = [0, 0, code] if error else []
        return op(name, how, *body, 64, 0, 0xff)
    body = [0, 0, code, 0, 64] if error else []
    return op(name, how, *body, 0, 64, 0xff)


def nonce():
    return list(range(16))


def seeds():
    s = {}
    s["ping4"] = config() + client() + hello() + open_() + send() + \
        answer() + op("read", 0) + op("simple", 0, 1, 0) + \
        send(k=4, ctl=[3, 1]) + answer()
    s["ping6"] = config() + client() + hello() + open_(v6=True) + \
        send(k=0) + answer(v6=True) + op("read", 0)
    s["loopback"] = config(loopback=True) + client() + hello() + open_() + \
        send() + send(k=1) + op("read", 0)
    s["park_rate"] = config(rate=1) + client() + hello() + open_() + \
        send() + send() + op("clock", 3) + send(dontwait=True)
    s["park_interval"] = config(ival=3) + client() + hello() + open_() + \
        send() + send() + op("clock", 4)
    s["recverr4"] = config() + client() + hello() + open_() + \
        setopt(0, 0, IP_RECVERR, 1) + send() + answer(error=True) + \
        op("read", 0)
    s["recverr6"] = config() + client() + hello() + open_(v6=True) + \
        setopt(0, 0, IPV6_RECVERR, 1) + send() + answer(v6=True, error=True) + \
        op("read", 0)
    s["connected_err"] = config() + client() + hello() + open_() + \
        op("connect_sock", 0, 0, 0, 2) + send(noname=True) + \
        answer(error=True, code=3) + send(noname=True) + op("arena", 0, 0) + \
        send(noname=True)
    s["local_err"] = config() + client() + hello() + open_() + \
        setopt(0, 0, IP_RECVERR, 1) + op("knob", 0) + send() + op("read", 0)
    s["attach"] = config() + client() + hello() + open_() + \
        op("proof", 0, 0) + nonce() + client(0, 0) + hello(1) + \
        op("attach", 1, 0, 0) + send(c=1) + op("simple", 1, 0, 0)
    s["attach_other_uid"] = config() + client(0, 1) + hello() + open_() + \
        op("proof", 0, 0) + nonce() + client(2, 2) + hello(1) + \
        op("attach", 1, 0, 0) + op("simple", 1, 1, 0) + op("simple", 0, 5)
    s["broker"] = config(broker4=True) + client() + hello() + open_() + \
        op("proof", 0, 0) + nonce() + \
        op("broker_bind", 0, 0, 0, 0x80, *u16(4242)) + addr(0) + \
        op("broker_bind", 0, 0, 0, 0) + addr(0) + op("close_fd", 0, K_LIVE) + \
        op("clock", 3) + op("simple", 0, 4)
    s["broker_taken"] = config(broker4=True, broker6=True) + client() + \
        hello() + client(0, 1) + hello(1) + open_(0) + open_(1) + \
        op("proof", 1, 0) + nonce() + \
        op("broker_bind", 1, 1, 0, 0x82, *u16(4242)) + addr(0) + \
        op("proof", 0, 0) + nonce() + \
        op("broker_bind", 0, 0, 0, 0x80, *u16(4242)) + addr(0)
    s["broker_relay_uid"] = config(broker4=True, relay_1000=True) + \
        client(0, 1) + hello() + open_() + send() + answer()
    s["raw_compat"] = config(raw_compat=True) + client() + hello() + \
        open_(raw=True) + send() + answer() + answer(error=True) + op("read", 0)
    s["limits"] = config(socks=1, conns=1, idents=1, nofile=1) + client() + \
        hello() + open_() + open_() + client(2) + client() + op("simple", 0, 4)
    s["keepid_bind"] = config() + client() + hello() + open_() + open_() + \
        op("keepid", 0, 0, *u16(777)) + \
        op("bind", 0, 1, 1, *u16(777), 0) + op("simple", 0, 1, 1)
    s["options"] = config() + client() + hello() + open_() + \
        setopt(0, 0, SO_BROADCAST, 1) + op("getopt", 0, 0, 0, 0) + \
        setopt(0, 0, 2, 4) + send(k=5)
    s["reload"] = config() + client() + hello() + open_() + \
        op("reload", 0, 1, 1, 1) + send() + send() + op("clock", 3)
    s["protocol_errors"] = config() + client() + op("simple", 0, 4) + \
        client() + hello(1) + hello(1) + client(1) + hello(2) + \
        op("rawframe", 2, 1, 5, 1, 2, 3, 4, 5)
    s["passfd"] = config() + client(0) + hello() + op("passfd", 1, 0) + \
        client(1) + hello(1) + op("passfd", 1, 1) + open_(1) + \
        op("proof", 0, 4) + nonce()
    s["foreign"] = config() + client(3) + hello() + op("simple", 0, 4)
    s["close_all"] = config() + client() + hello() + open_() + send() + \
        op("close_fd", 0, K_DATA) + answer() + op("close_client", 0) + \
        op("simple", 0, 4)
    s["queued"] = config() + client() + hello(turn=False) + \
        op("open", 0, 0, turn=False) + op("simple", 0, 4, turn=False) + \
        op("simple", 0, 5)
    s["errq4"] = config() + client() + hello() + open_() + \
        setopt(0, 0, IP_RECVERR, 1) + send() + answer(error=True) + \
        op("read", 0) + op("arena", 0, 0) + op("simple", 0, ERRQ, 0) + \
        op("simple", 0, ERRQ, 0) + op("getopt", 0, 0, SO_ERROR, 0)
    s["errq6"] = config() + client() + hello() + open_(v6=True) + \
        setopt(0, 0, IPV6_RECVERR, 1) + send() + answer(v6=True, error=True) + \
        send() + answer(v6=True, error=True, code=4) + \
        op("simple", 0, ERRQ, 0) + op("getopt", 0, 0, SO_ERROR, 0) + \
        op("simple", 0, ERRQ, 0) + op("simple", 0, ERRQ, 0)
    s["errq_local"] = config() + client() + hello() + open_() + \
        setopt(0, 0, IP_RECVERR, 1) + op("knob", 0) + send() + \
        op("simple", 0, ERRQ, 0) + setopt(0, 0, IP_RECVERR, 0) + \
        op("simple", 0, ERRQ, 0)
    s["err_wake"] = config() + client() + hello() + open_() + \
        op("connect_sock", 0, 0, 0, 2) + send(noname=True) + \
        answer(error=True, code=3) + op("read", 0) + op("arena", 0, 0) + \
        op("getopt", 0, 0, SO_ERROR, 0) + op("simple", 0, ERRQ, 0) + \
        op("arena", 0, 0)
    s["arena_join"] = config() + client() + hello() + open_() + \
        op("proof", 0, 0) + nonce() + client() + hello(1, tok=TOK_OF, of=0) + \
        op("attach", 1, 0, 0) + open_(1) + send(c=1) + \
        setopt(1, 0, IP_RECVERR, 1) + op("arena", 0, 0) + \
        op("arena", 1, 0) + op("close_client", 0) + client() + \
        hello(0, tok=TOK_OF, of=1) + op("proof", 1, 0) + nonce() + \
        op("attach", 0, 1, 0) + op("arena", 1, 0)
    s["arena_mirrors"] = config() + client() + hello() + open_() + \
        op("proof", 0, 0) + nonce() + client() + hello(1) + \
        op("attach", 1, 0, 0) + setopt(0, 0, SO_TIMESTAMP, 1) + \
        setopt(1, 0, IP_RECVERR, 1) + op("arena", 0, 0) + send(c=1) + \
        answer(error=True) + \
        op("read", 0) + op("arena", 0, 0) + op("simple", 1, ERRQ, 0) + \
        op("getopt", 1, 0, SO_ERROR, 0) + op("arena", 0, 0) + \
        op("simple", 0, SHUTDOWN, 0) + op("arena", 0, 0)
    s["arena_forged"] = config() + client() + hello(tok=TOK_FORGED) + \
        open_() + client() + hello(1, tok=TOK_NONE) + open_(1) + \
        client() + hello(2, tok=TOK_OF, of=1) + op("arena", 0, 8)
    s["arena_gone"] = config() + client() + hello() + open_() + \
        op("close_fd", 0, K_DATA) + op("close_client", 0) + client() + \
        hello() + open_() + op("arena", 0, 0)
    # A process's only connection goes while its socket lives: the
    # arena lingers (the socket's slot keeps it, for a child that goes
    # on), and the next HELLO may join it.
    s["arena_kept"] = config() + client() + hello() + open_() + \
        op("close_client", 0) + client() + hello() + open_() + \
        op("arena", 1, 0)
    # Sends answered in the answer slot, one made to wait, a WAIT for it
    # and one more WAIT (out of protocol: disconnected).
    s["slot_wait"] = config(rate=1) + client() + hello() + open_() + \
        send(slot=True) + send(slot=True) + op("simple", 0, 9, 0) + \
        op("clock", 3) + op("simple", 0, 9, 0)
    # Sends answered in the slot still queued when the client hangs up:
    # the daemon lets it go at once (a written answer's failure used to
    # tell it), and its sockets cost it no more than their descriptors.
    s["slot_hangup"] = config(rate=1) + client() + hello() + open_() + \
        open_() + send(h=1, slot=True, turn=False) + \
        send(h=1, slot=True, turn=False) + send(slot=True) + \
        op("close_client", 0)
    return s


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, "corpus", "fuzz_dispatch")
    os.makedirs(out, exist_ok=True)
    for name, data in seeds().items():
        data = bytes(data)
        digest = hashlib.sha1(data).hexdigest()[:12]
        with open(os.path.join(out, f"{name}-{digest}"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
