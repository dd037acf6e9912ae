#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
"""gen_seeds.py - write the seed corpora of the engine fuzz targets
fuzz_idents and fuzz_flow (tests/fuzz/corpus/NAME/), hand-made sessions
in the targets' own operation encoding (see step() in each .c file; the
constants below name its tables' entries).

    tests/fuzz/gen_seeds.py        # from the repository's top directory

Each seed is a short scenario worth starting from; the fuzzer mutates
them.  Re-run after changing an encoding, and commit the result.
"""
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

# ---- fuzz_idents ----

(I_OPEN, I_BIND, I_KEEPID, I_CONNECT, I_SEND, I_BURST, I_SETOPT, I_GETOPT,
 I_LOOKUP, I_SHUTDOWN, I_CLOSE, I_FOREIGN, I_GETNAME, I_RAWCOMPAT,
 I_TIME) = range(15)

# indexes into idents[]
ID = {0: 0, 1: 1, 2: 2, 3: 3, 7: 4, 100: 5, 255: 6, 256: 7, 1000: 8,
      4242: 9, 4243: 10, 0x7fff: 11, 0x8000: 12, 0xfffe: 13, 0xffff: 14,
      4001: 15}
# addr4[] / addr6[]
LO4, LO4B, HOST1, REMOTE4, BCAST, ALLBCAST, MCAST4, NOROUTE4, ANY4 = range(9)
ANY6, LO6, FD1, FD9, LL1, LL9, MC6, MC6G, MAPPED, NOROUTE6 = range(10)
# opts[]
(O_REUSEADDR, O_BINDTOIFINDEX, O_BINDTODEVICE, O_BROADCAST, O_TYPE,
 O_RECVERR, O_HDRINCL, O_TTL, O_FREEBIND, O_MCAST_IF, O_RAW_FILTER,
 O_RAW_CSUM, O_RAW_HDRINCL6, O_RECVERR6, O_V6ONLY, O_CSUM6, O_HDRINCL6,
 O_UNICAST_IF, O_MCAST_IF6, O_FILTER6, O_FREEBIND6, O_OPTIONS) = range(22)
# make_val(): an int of ints[] (4 bytes), a device, or raw bytes
V0, V1, VM1, V2 = 0x00, 0x01, 0x02, 0x03
DEV_LO = 0x80


def i_open(v6=False, raw=False, uid=0, pid=0):
    """uid: 0 -> 1000, 1 -> 2000, 2 -> 3000"""
    return bytes([I_OPEN, int(v6) | int(raw) << 1 | uid << 2 | pid << 4])


def i_send(slot, ident, seq, addr=LO4, ttype=0, length=0, noname=False,
           ctl=0, badsum=False):
    """ttype: index into types4/types6 (0: Echo Request, 1: PROBE,
    2: Echo Reply, 3: another type); length: index into lens[]
    (0: 8 bytes, 1: 64, 2: 7, 6: 300, 7: 65536)"""
    t = ttype | length << 3
    d = 0x80 if noname else addr
    f = ctl | (0x80 if badsum else 0)
    return bytes([I_SEND, slot, t, d, f, ID[ident], seq >> 8, seq & 0xff])


def i_burst(slot, base=0, count=16, past_cap=False):
    """base: 0 -> 1000, 1 -> 0xff80, 2 -> 20000, 3 -> 4000"""
    c = 0xf0 if past_cap else (count - 1) & 0x1f
    return bytes([I_BURST, slot, base, c])


def i_lookup(rec=0, error=False, ident_now=False, other_seq=None,
             dst=LO4, ifindex=0):
    """A reply to request number rec (or an error quoting it)."""
    k = (1 if error else 0) | (8 if ident_now else 0) | ifindex << 6
    seq = 0
    if other_seq is not None:
        k |= 16
        seq = other_seq
    t = 2 if error else 0
    return bytes([I_LOOKUP, k, t, dst << 4 | dst, rec >> 8, rec & 0xff,
                  seq >> 8, seq & 0xff])


def i_setopt(slot, opt, val=V1, raw=b''):
    if raw:
        return bytes([I_SETOPT, slot, opt, 0xa0, len(raw)]) + raw
    return bytes([I_SETOPT, slot, opt, val])


def idents_seeds():
    s = {}
    # liboping: one raw socket, an identifier per host, a filter, lookups
    s['raw_many_idents'] = (
        i_open(raw=True) + i_send(0, 1000, 1) + i_send(0, 4242, 1) +
        i_send(0, 4243, 2, addr=LO4B) +
        i_setopt(0, O_RAW_FILTER, raw=b'\x01\x00\x00\x00') +
        i_setopt(0, O_RECVERR) + i_lookup(1) + i_lookup(2, error=True) +
        i_send(0, 4242, 3, badsum=True) + bytes([I_CLOSE, 0]) + i_lookup(0))
    s['raw_past_the_cap'] = i_open(raw=True) + i_burst(0, past_cap=True)
    s['raw6_echo'] = (
        i_open(v6=True, raw=True) + i_send(0, 4001, 9, addr=LO6) +
        i_send(0, 7, 9, addr=LO6, ttype=1) +
        i_send(0, 100, 9, addr=LO6, ttype=3) +
        i_setopt(0, O_FILTER6, raw=bytes(32)) + i_setopt(0, O_CSUM6, VM1) +
        bytes([I_GETOPT, 0, O_RAW_CSUM, 0, I_GETNAME, 0, 0]) +
        i_lookup(0, dst=LO6) + i_lookup(1, error=True, dst=LO6))
    # PINGSOCK_IDENT=keep against another uid's identifiers
    s['keepid_uids'] = (
        i_open(uid=0) + bytes([I_KEEPID, 0, ID[4242]]) +
        i_open(uid=1) + bytes([I_KEEPID, 1, ID[4242]]) +
        i_open(raw=True, uid=1) + i_send(2, 4242, 1) + i_send(2, 4243, 1) +
        i_open(raw=True, uid=0) + i_send(3, 4243, 1) + i_send(3, 4242, 1) +
        bytes([I_KEEPID, 1, ID[4243], I_KEEPID, 1, ID[0]]))
    s['keepid_foreign'] = (
        bytes([I_FOREIGN, ID[4242] << 1]) + i_open() +
        bytes([I_KEEPID, 0, ID[4242]]) + i_open(raw=True) +
        i_send(1, 4242, 1) + i_open(v6=True) +
        bytes([I_KEEPID, 2, ID[4242]]))
    # a reply with the next identifier to a request of the old one
    s['disconnect_rebind'] = (
        i_open() + i_send(0, 0, 5) +
        bytes([I_CONNECT, 0, ANY4, 0x01, 0]) +
        bytes([I_KEEPID, 0, ID[4242]]) + i_lookup(0, ident_now=True) +
        i_send(0, 0, 6) + i_lookup(1))
    s['ping6_bound'] = (
        i_open(v6=True) + bytes([I_BIND, 0, LL1, 0x08, ID[0]]) +
        bytes([I_CONNECT, 0, LL9, 0x08, ID[7]]) +
        i_send(0, 0, 1, noname=True) +
        i_send(0, 0, 2, addr=MC6, ctl=4) + i_lookup(0, dst=LL1, ifindex=1) +
        i_send(0, 0, 3, addr=MAPPED))
    s['ping4_options'] = (
        i_open() + bytes([I_BIND, 0, HOST1, 0, ID[0]]) +
        i_setopt(0, O_BROADCAST) + i_send(0, 0, 1, addr=BCAST, ctl=1) +
        i_send(0, 0, 2, addr=MCAST4, ctl=2) +
        i_send(0, 0, 3, addr=NOROUTE4) + i_lookup(0, dst=HOST1) +
        bytes([I_SHUTDOWN, 0, 2]) + i_send(0, 0, 4))
    s['raw_options'] = (
        i_open(raw=True) + i_setopt(0, O_HDRINCL, V1) +
        i_setopt(0, O_HDRINCL, V0) + i_setopt(0, O_BINDTODEVICE, DEV_LO) +
        bytes([I_GETOPT, 0, O_TYPE, 0, I_GETOPT, 0, O_HDRINCL, 0]) +
        i_send(0, 256, 1) + bytes([I_BIND, 0, LO4B, 0, ID[0]]) +
        i_send(0, 255, 1, addr=LO4B) +
        bytes([I_CONNECT, 0, LO4, 0, ID[0]]) + i_send(0, 3, 2, noname=True)
        + i_lookup(2, dst=LO4B, ifindex=1))
    s['raw_refused'] = (
        bytes([I_RAWCOMPAT, 1]) + i_open(raw=True) + bytes([I_RAWCOMPAT, 0])
        + i_open(raw=True, uid=2) + i_send(0, 1000, 1, ttype=2) +
        i_send(0, 0, 1) + i_send(0, 1000, 1, length=2) +
        i_send(0, 1000, 1, length=7))
    return s


# ---- fuzz_flow ----

(F_OPEN, F_LEASE, F_FILL, F_SETOPT, F_CONNECT, F_SEND, F_GETPEER,
 F_DISCONNECT, F_CLOSE) = range(9)
GET, PUT, RENEW = range(3)
CREATE, EXCL, REFLECT = 1, 2, 4
# shares[]: 0 any, 1 exclusive, 2 process, 3 user
SH_ANY, SH_EXCL, SH_PROCESS, SH_USER = range(4)
# label_of(): hosts[] 0, 1, 2, 0x12345, 0xfffff, 0x100000, 0x80000000, 77
L0, L1, L2, L12345, LMAX, LBIG = range(6)
HELD, FRESH = 0x18, 0x10
# addr6[] of fuzz_flow
C_LO, C_FD9, C_LL9, C_MC, C_MAPPED, C_ANY, C_NOROUTE = range(7)


def f_open(v4=False, raw=False, uid=0, pid=0):
    return bytes([F_OPEN, (3 if v4 else 0) | int(raw) << 2 | uid << 3 |
                  pid << 5])


def f_lease(slot, action=GET, label=L12345, share=SH_ANY, flags=CREATE,
            as_opt=False, expires=0, linger=0):
    """expires, linger: index into times[] (2: 150, 3: 151)"""
    a = action | (0x20 if as_opt else 0)
    return bytes([F_LEASE, slot, a, label, share, flags,
                  expires | linger << 3])


def f_sndflow(slot, on=True):
    return bytes([F_SETOPT, slot, 2 if on else 0])


def f_connect(slot, addr=C_FD9, label=L12345, port=1):
    return bytes([F_CONNECT, slot, addr, label, 0, port << 4])


def f_send(slot, addr=C_FD9, label=L12345, named=True, ctl=0):
    """ctl: 0 none, 2 IPV6_TCLASS, 3 IPV6_FLOWINFO"""
    return bytes([F_SEND, slot, addr, label, (0 if named else 1) | ctl << 1,
                  0x10])


def flow_seeds():
    s = {}
    s['lease_get_put_renew'] = (
        f_open() + f_lease(0) + f_lease(0, RENEW, expires=2, linger=3) +
        f_lease(0, RENEW, expires=1) + f_lease(0, PUT) + f_lease(0, PUT) +
        f_lease(0, GET, flags=0) + f_lease(0, GET, label=L0) +
        f_lease(0, PUT, label=FRESH))
    s['share_modes'] = (
        f_open(uid=0) + f_open(uid=1) + f_open(uid=0, pid=1) +
        f_lease(0, label=L1, share=SH_USER) +
        f_lease(1, label=L1, share=SH_USER) +
        f_lease(2, label=L1, share=SH_USER) +
        f_lease(0, label=L2, share=SH_PROCESS) +
        f_lease(2, label=L2, share=SH_PROCESS) +
        f_lease(1, label=LMAX, share=SH_EXCL) +
        f_lease(0, label=LMAX, share=SH_EXCL) +
        f_lease(1, label=LMAX, share=SH_EXCL, flags=CREATE | EXCL) +
        f_lease(1, label=LBIG) + f_lease(1, flags=REFLECT))
    s['sndflow_connect_send'] = (
        f_open() + f_lease(0) + f_sndflow(0) + f_connect(0, label=L1) +
        f_connect(0) + bytes([F_GETPEER, 0]) + f_send(0, named=False) +
        f_send(0, label=L2) + f_send(0, ctl=3) + f_lease(0, PUT) +
        bytes([F_GETPEER, 0]) + f_send(0, named=False) +
        f_connect(0, addr=C_MAPPED, label=L2))
    s['fill_past_32'] = (
        f_open(raw=True) + bytes([F_FILL, 0, 40 << 2 | SH_ANY]) +
        f_lease(0, label=HELD, flags=0) + bytes([F_CLOSE, 0]))
    s['close_releases'] = (
        f_open(uid=0) + f_open(uid=1) + f_lease(0, label=L12345) +
        f_lease(1, label=L12345) + f_lease(0, label=L1, share=SH_EXCL) +
        bytes([F_CLOSE, 0]) + f_lease(1, label=L1, flags=0) +
        bytes([F_CLOSE, 1]))
    s['ipv4_has_none'] = (
        f_open(v4=True) + f_lease(0) + f_lease(0, as_opt=True) +
        f_sndflow(0) + f_send(0) + f_open(raw=True, uid=2) +
        f_lease(1, as_opt=True) + f_lease(1, action=PUT, as_opt=True))
    s['raw6_leases'] = (
        f_open(raw=True) + f_lease(0, label=L2, share=SH_USER) +
        f_sndflow(0) + f_connect(0, addr=C_LO, label=L2) +
        f_send(0, named=False) + bytes([F_DISCONNECT, 0]) +
        f_send(0, addr=C_LO, label=L1))
    return s


def write(name, seeds):
    d = os.path.join(TOP, 'tests', 'fuzz', 'corpus', name)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.remove(os.path.join(d, f))
    for k, v in sorted(seeds.items()):
        with open(os.path.join(d, k), 'wb') as fh:
            fh.write(v)
    print('%s: %d seeds' % (name, len(seeds)))


def main():
    write('fuzz_idents', idents_seeds())
    write('fuzz_flow', flow_seeds())
    return 0


if __name__ == '__main__':
    sys.exit(main())
