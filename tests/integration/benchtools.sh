#!/bin/bash
# SPDX-License-Identifier: ISC
# benchtools - make bench's measuring tools work, and leave nothing
# behind (their figures are make bench's business, not a test's):
#   ipcfloor COUNT: prints count=, block_us=, spin_us= (positive numbers);
#   hookfloor CGROUP CMD: CMD runs in CGROUP with its exit status, while
#     the programs are attached (a cgroup_skb pair on the cgroup, an IPv4
#     LOCAL_IN netfilter link in the namespace); once it exits no link
#     of its remains and the cgroup can be removed; a kernel ping socket
#     made under it still gets its echo.
# shellcheck source-path=SCRIPTDIR source=../lib/netns.sh
. "$(dirname "$0")/../lib/netns.sh"
LABEL=benchtools

out=$("$T/bench/ipcfloor" 200 2>&1)
if grep -qx 'count=200' <<<"$out" &&
	grep -Eqx 'block_us=[0-9]+\.[0-9]+' <<<"$out" &&
	grep -Eqx 'spin_us=[0-9]+\.[0-9]+' <<<"$out"; then
	pass "$LABEL/ipcfloor"
else
	fail "$LABEL/ipcfloor" "$(tr '\n' '|' <<<"$out")"
fi

if [ "$(id -u)" != 0 ]; then
	skip "$LABEL/hookfloor" "needs root (namespaces, BPF)"
	ns_done
fi
cg2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
if [ -z "$cg2" ]; then
	fail "$LABEL/hookfloor" "no cgroup2 file system mounted"
	ns_done
fi
ns_new h open || { fail "$LABEL/setup" "namespace"; ns_done; }
CG=$cg2/pingsock-test-$NS_PREFIX-hooks
NS_CGROUPS+=("$CG")
# nf_links: the netfilter links of the system (bpftool 7.1 predates
# them: "type 10").
nf_links() { bpftool link list 2>/dev/null | grep -cE '^[0-9]+: +(netfilter|type 10) '; }
before=$(nf_links)
hf() {
	nsenter --net="/run/netns/$(ns_name h)" "$T/bench/hookfloor" "$CG" "$@"
}

# While CMD runs: its cgroup is CG, two cgroup programs and one more
# netfilter link are there.
# shellcheck disable=SC2016  # expanded by the inner sh
out=$(hf sh -c 'cat /proc/self/cgroup
	bpftool cgroup show "$1" | grep -cE "cgroup_inet_(egress|ingress)"
	bpftool link list | grep -cE "^[0-9]+: +(netfilter|type 10) "' sh "$CG" 2>&1)
rc=$?
want_cg="0::/${CG#"$cg2"/}"
if [ $rc = 0 ] && grep -qxF "$want_cg" <<<"$out"; then
	pass "$LABEL/hookfloor_runs_cmd_in_cgroup"
else
	fail "$LABEL/hookfloor_runs_cmd_in_cgroup" "rc=$rc: $(tr '\n' '|' <<<"$out")"
fi
if [ "$(tail -2 <<<"$out" | head -1)" = 2 ] &&
	[ "$(tail -1 <<<"$out")" = $((before + 1)) ]; then
	pass "$LABEL/hookfloor_programs_attached"
else
	fail "$LABEL/hookfloor_programs_attached" "cgroup_skb programs, netfilter links ($before before): $(tail -2 <<<"$out" | tr '\n' ' ')"
fi
hf sh -c 'exit 7'
rc=$?
if [ $rc = 7 ]; then
	pass "$LABEL/hookfloor_exit_status"
else
	fail "$LABEL/hookfloor_exit_status" "exit $rc, not 7"
fi
out=$(hf setpriv --reuid=65534 --regid=65534 --clear-groups \
	env PINGSOCK_BACKEND=kernel "$T/bench/pingbench" closed 10 2>&1)
if grep -qx 'received=10' <<<"$out" && grep -qx 'backend=kernel' <<<"$out"; then
	pass "$LABEL/hookfloor_echoes_pass"
else
	fail "$LABEL/hookfloor_echoes_pass" "$(tr '\n' '|' <<<"$out")"
fi
if [ "$(nf_links)" = "$before" ]; then
	pass "$LABEL/hookfloor_links_gone"
else
	fail "$LABEL/hookfloor_links_gone" "$(nf_links) netfilter links, $before before"
fi
if rmdir "$CG"; then
	pass "$LABEL/hookfloor_cgroup_removable"
else
	fail "$LABEL/hookfloor_cgroup_removable" "rmdir $CG"
fi
ns_done
