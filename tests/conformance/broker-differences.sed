# SPDX-License-Identifier: ISC
# Broker mode's deliberate differences from the kernel's ping socket,
# applied to the kernel's output before it is compared (run.sh).  Each is
# listed in pingsockd(8), BROKER MODE.
#
# A broker socket keeps its identifier for its whole life.  pingsockd
# binds every socket it hands out to an explicit identifier, which sets
# the kernel's bind lock: a disconnect (connect AF_UNSPEC) leaves it bound.
# On the kernel's own socket a disconnect releases an identifier that was
# chosen automatically, and any user may then bind it and read the
# replies to it (issue 15, finding 3).
/^connect AF_UNSPEC: 0$/{
n
s/ port=0\( \|$\)/ port=auto\1/
}

# A bind before first use replaces the socket: the copies this process
# holds get the new one, but a copy in another process (here a child
# forked before the bind) keeps the socket it had, with the identifier
# pingsockd gave it (bind_fresh).
s/^forked child: its copy has the bound identifier: yes$/forked child: its copy has the bound identifier: no/
