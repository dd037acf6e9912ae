#!/bin/bash
# SPDX-License-Identifier: ISC
# run - pingsock-run (issue 18, item 1): programs that LD_PRELOAD does not
# reach get their ping sockets from pingsockd's broker mode all the same.
# As uid 65534 in a namespace whose ping_group_range is closed:
#   - a Go program of our own (golang.org/x/net/icmp, Debian's golang and
#     x/net packages, built offline here): 50 sockets from 50 goroutines,
#     each bound to the wildcard before its first send, while a busy
#     goroutine makes the runtime preempt with SIGURG; IPv4 and IPv6; and
#     no socket left counted by the daemon afterwards;
#   - Debian's prometheus-blackbox-exporter: its icmp prober's
#     probe_success for 127.0.0.1, ::1 and an address that does not
#     answer, the same as on the kernel's own socket;
#   - a statically linked C program making raw system calls;
#   - Python binding to an address (the daemon's bind, as the library's
#     broker backend does it);
#   - iputils' ping with its file capability, started by a shell script:
#     under no_new_privs it runs without the capability and so gets its
#     socket from the daemon (counted there);
#   - max_sockets holds for sockets handed over this way;
#   - the exit status and signals of the program are passed on, 126/127
#     when it cannot be run, 125 and a clear word when the daemon relays
#     (nothing can be handed over), and no filter at all where the kernel
#     allows ping sockets.
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
LABEL=run

if [ "$(id -u)" != 0 ]; then
	skip "$LABEL" "needs root for network namespaces"
	ns_done
fi
for p in go prometheus-blackbox-exporter; do
	if ! command -v "$p" >/dev/null; then
		fail "$LABEL/setup" "no $p (.ci/run installs golang-go, golang-golang-x-net-dev, prometheus-blackbox-exporter)"
		ns_done
	fi
done
RUN=$T/pingsock-run
PY=/usr/bin/python3

# Namespaces: d (closed, broker-mode pingsockd), k (open: the kernel's
# own socket), each with a peer that drops Echo Requests (an address that
# does not answer) at 10.219.0.2.
ns_new d closed && ns_new dp closed && ns_new k open && ns_new kp closed ||
	{ fail "$LABEL/setup" "namespaces"; ns_done; }
ns_veth d dp 10.219.0.1/24 10.219.0.2/24 && ns_veth k kp 10.219.0.1/24 10.219.0.2/24 ||
	{ fail "$LABEL/setup" "veth"; ns_done; }
in_ns dp sysctl -qw net.ipv4.icmp_echo_ignore_all=1
in_ns kp sysctl -qw net.ipv4.icmp_echo_ignore_all=1
printf 'max_sockets = 60\n' >"$T/run.conf" && chmod 644 "$T/run.conf"
daemon_start d --mode broker --broker-group "$BROKER_GID" --config "$T/run.conf" ||
	{ fail "$LABEL/setup" "pingsockd"; ns_done; }
ctl() { in_ns d "$T/pingsockctl" --socket "$(ns_sock d)" "$@"; }
# held: the sockets the daemon counts for uid 65534 (0 if none).
held() { ctl status | awk '$1 == "uid" && $2 == 65534 { n = $4 } END { print n + 0 }'; }
check() {	# NAME EXPECTED-ERE OUTPUT
	if grep -Eq "$2" <<<"$3"; then pass "$LABEL/$1"; else
		fail "$LABEL/$1" "expected /$2/, got: $(tr '\n' '|' <<<"$3" | head -c 400)"; fi
}

# ---- Go ----
mkdir -p "$T/go" && cp -r "$(dirname "$0")/../go/goping" "$T/go/" &&
	(cd "$T/go/goping" && HOME=$T/go GOCACHE=$T/go/cache GO111MODULE=off \
		GOPATH=/usr/share/gocode GOFLAGS= go build -o "$T/goping" .) \
		>"$T/go.log" 2>&1 && chmod 755 "$T/goping" ||
	fail "$LABEL/go_build" "$(tail -5 "$T/go.log" | tr '\n' '|')"
check go_without_run 'socket: permission denied' "$(as_nobody d "$T/goping" 4 127.0.0.1 1 2>&1)"
check go_v4_50_sockets '^replies 50$' "$(as_nobody d "$RUN" "$T/goping" 4 127.0.0.1 50 2>&1)"
check go_v6_20_sockets '^replies 20$' "$(as_nobody d "$RUN" "$T/goping" 6 ::1 20 2>&1)"
# The supervisor looks for sockets gone once a second: 10 s at most
# (a busy machine) until the ended program's are forgotten.
held_zero() {
	local n
	for _ in $(seq 100); do
		n=$(held)
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	echo "$n"
}
check go_nothing_left '^0$' "$(held_zero)"

# A socket the program closes is no longer counted, while it runs on (it
# ends only when told, after the count is read).
cat >"$T/close.py" <<'EOF'
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
open(sys.argv[1], "w").write("open\n")
for _ in range(600):            # until told to close (30 s at most)
    if os.path.exists(sys.argv[1] + ".go"):
        break
    time.sleep(0.05)
s.close()
open(sys.argv[1], "a").write("closed\n")
for _ in range(600):            # runs on until told (30 s at most)
    if os.path.exists(sys.argv[1] + ".end"):
        break
    time.sleep(0.05)
EOF
chmod 644 "$T/close.py"
mkdir -p "$T/flag" && chmod 777 "$T/flag"
as_nobody d "$RUN" "$PY" "$T/close.py" "$T/flag/f" &
cp=$!
for _ in $(seq 1 50); do grep -q open "$T/flag/f" 2>/dev/null && break; sleep 0.1; done
n_open=$(held)
: >"$T/flag/f.go"
for _ in $(seq 1 50); do grep -q closed "$T/flag/f" 2>/dev/null && break; sleep 0.1; done
# (At first pingsock-run's own check of the daemon may still count.)
check liveness_follows_close '^[12] 0$' "$n_open $(held_zero)"
: >"$T/flag/f.end"
wait $cp

# ---- Debian's blackbox exporter ----
cat >"$T/bb.yml" <<'EOF'
modules:
  icmp:
    prober: icmp
    timeout: 2s
  icmp6:
    prober: icmp
    timeout: 2s
    icmp:
      preferred_ip_protocol: ip6
EOF
chmod 644 "$T/bb.yml"
probe() {	# NS MODULE TARGET: the probe's probe_success line
	in_ns "$1" "$PY" -c 'import sys, urllib.request
u = "http://127.0.0.1:9115/probe?module=%s&target=%s" % (sys.argv[1], sys.argv[2])
for l in urllib.request.urlopen(u, timeout=10).read().decode().splitlines():
    if l.startswith("probe_success "): print(l)' "$2" "$3" 2>&1
}
bb_up() {	# NS: wait for the exporter to listen
	for _ in $(seq 1 100); do
		in_ns "$1" "$PY" -c 'import socket; socket.create_connection(("127.0.0.1", 9115), 1)' \
			2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
BB=(/usr/bin/prometheus-blackbox-exporter --config.file="$T/bb.yml"
	--web.listen-address=127.0.0.1:9115)
for side in k d; do
	if [ $side = d ]; then
		as_nobody d "$RUN" "${BB[@]}" >"$T/bb.$side.log" 2>&1 &
	else
		as_nobody k "${BB[@]}" >"$T/bb.$side.log" 2>&1 &
	fi
	bbpid=$!
	if bb_up $side; then
		for t in "icmp 127.0.0.1" "icmp6 ::1" "icmp 10.219.0.2"; do
			# shellcheck disable=SC2086
			echo "$t $(probe $side $t)"
		done >"$T/bb.$side.out"
	else
		echo "exporter did not start: $(tail -3 "$T/bb.$side.log")" >"$T/bb.$side.out"
	fi
	kill "$bbpid" 2>/dev/null
	wait "$bbpid" 2>/dev/null
done
check blackbox_v4 '^icmp 127.0.0.1 probe_success 1$' "$(cat "$T/bb.d.out")"
check blackbox_v6 '^icmp6 ::1 probe_success 1$' "$(cat "$T/bb.d.out")"
check blackbox_no_answer '^icmp 10.219.0.2 probe_success 0$' "$(cat "$T/bb.d.out")"
if diff -q "$T/bb.k.out" "$T/bb.d.out" >/dev/null; then
	pass "$LABEL/blackbox_as_kernel"
else
	fail "$LABEL/blackbox_as_kernel" "kernel: $(tr '\n' '|' <"$T/bb.k.out") run: $(tr '\n' '|' <"$T/bb.d.out")"
fi

# ---- a static program, raw system calls ----
check static_without_run '^socket: Permission denied$' "$(as_nobody d "$T/tests/static/rawsys" 4 127.0.0.1)"
check static_v4 '^reply$' "$(as_nobody d "$RUN" "$T/tests/static/rawsys" 4 127.0.0.1 2>&1)"
check static_v6 '^reply$' "$(as_nobody d "$RUN" "$T/tests/static/rawsys" 6 ::1 2>&1)"

# ---- bind to an address: the daemon's bind ----
cat >"$T/bind.py" <<'EOF'
import socket, struct, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 33)
s.bind((sys.argv[1], 0))
s.settimeout(2)
s.sendto(struct.pack("!BBHHH", 8, 0, 0, 0, 1) + b"run", ("127.0.0.1", 0))
d = s.recv(100)
print("bound", s.getsockname()[0], "ttl", s.getsockopt(socket.IPPROTO_IP, socket.IP_TTL), "reply", d[0])
try:
    s.bind((sys.argv[1], 0))
except OSError as e:
    print("again", e.errno)
EOF
chmod 644 "$T/bind.py"
check bind_address '^bound 127.0.0.1 ttl 33 reply 0$' "$(as_nobody d "$RUN" "$PY" "$T/bind.py" 127.0.0.1 2>&1)"
check bind_twice_einval '^again 22$' "$(as_nobody d "$RUN" "$PY" "$T/bind.py" 127.0.0.1 2>&1)"

# ---- IPV6_V6ONLY before the program's bind: as on the kernel's socket ----
cat >"$T/v6only.py" <<'EOF'
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM, socket.IPPROTO_ICMPV6)
g = lambda: s.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY)
out = [g()]
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
out.append(g())
try:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, b"\0\0")
except OSError as e:
    out.append(e.errno)
s.bind(("::", 0))
try:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
except OSError as e:
    out.append(e.errno)
out.append(g())
print(*out)
EOF
chmod 644 "$T/v6only.py"
k=$(as_nobody k "$PY" "$T/v6only.py" 2>&1)
check v6only_as_kernel "^$k\$" "$(as_nobody d "$RUN" "$PY" "$T/v6only.py" 2>&1)"

# ---- iputils' ping with its file capability, from a script ----
cp /usr/bin/ping "$T/capping" && setcap cap_net_raw+ep "$T/capping" &&
	chmod 755 "$T/capping" || fail "$LABEL/setup" "setcap"
printf '#!/bin/sh\nexec "%s" -c 1 -W 2 127.0.0.1\n' "$T/capping" >"$T/script.sh"
chmod 755 "$T/script.sh"
before=$(ctl status | awk '$1 == "sockets_opened" { print $2 }')
out=$(as_nobody d "$RUN" "$T/script.sh" 2>&1)
after=$(ctl status | awk '$1 == "sockets_opened" { print $2 }')
check filecap_script '1 packets transmitted, 1 received' "$out"
check filecap_from_daemon '^[1-9]' "$((after - before))"

# ---- max_sockets (60 here) ----
cat >"$T/many.py" <<'EOF'
import socket, sys
held = []
try:
    for i in range(int(sys.argv[1])):
        held.append(socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP))
    print("all", len(held))
except OSError as e:
    print("after", len(held), "errno", e.errno)
EOF
chmod 644 "$T/many.py"
check max_sockets_holds '^after 60 errno 24$' "$(as_nobody d "$RUN" "$PY" "$T/many.py" 70 2>&1)"

# ---- status, signals, errors ----
as_nobody d "$RUN" sh -c 'exit 7'
check exit_status '^7$' "$?"
as_nobody d "$RUN" sh -c 'kill -TERM $$'
check killed_by_signal '^143$' "$?"
as_nobody d "$RUN" sleep 30 &
rp=$!
sleep 0.5
kill -USR1 $rp
wait $rp
check signal_forwarded '^138$' "$?"
out=$(as_nobody d "$RUN" "$T/nonexistent" 2>&1)
check not_found "^127 pingsock-run: $T/nonexistent: No such file" "$? $out"
out=$(as_nobody d "$RUN" "$T/run.conf" 2>&1)
check cannot_run '^126 pingsock-run: .*Permission denied' "$? $out"
out=$(as_nobody k "$RUN" grep Seccomp: /proc/self/status 2>&1)
check kernel_allows_no_filter 'Seccomp:[[:space:]]+0$' "$out"
out=$(as_nobody d "$RUN" grep Seccomp: /proc/self/status 2>&1)
check filtered_otherwise 'Seccomp:[[:space:]]+2$' "$out"
daemon_stop
daemon_start d || { fail "$LABEL/setup" "relay pingsockd"; ns_done; }
out=$(as_nobody d "$RUN" true 2>&1)
check relay_mode_refused '^125 pingsock-run: pingsockd relays' "$? $out"
daemon_stop
ns_done
