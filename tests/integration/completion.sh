#!/bin/bash
# SPDX-License-Identifier: ISC
# completion - the bash completion of completion/pingsockctl and
# completion/pingsockd, as bash-completion loads it: found by the
# command's name, then the completions of a few words compared with what
# they must be (commands, the long options of the program's own --help,
# --mode's modes, users and groups, files, sockets and the directories
# on the way to them for --socket).
set -u
cd "$(dirname "$0")/../.." || exit 1
LABEL=completion
BC=${BASH_COMPLETION:-/usr/share/bash-completion/bash_completion}
PS_BUILD=${PS_BUILD:-$PWD/build}
FAILED=0
pass() { echo "PASS: $LABEL/$1"; }
fail() { echo "FAIL: $LABEL/$1: ${2:-}"; FAILED=1; }

if ! [ -r "$BC" ]; then
	echo "SKIP: $LABEL: no bash-completion ($BC; apt install bash-completion)"
	exit 0
fi
T=$(mktemp -d /tmp/pingsock-completion.XXXXXX)
trap 'rm -rf "$T"' EXIT

# As installed: completions/NAME in a directory bash-completion searches.
mkdir -p "$T/user/completions" "$T/dir/sub" "$T/dir/subdir2"
cp completion/pingsockctl completion/pingsockd "$T/user/completions/"
: >"$T/dir/file.conf"
: >"$T/dir/other"
: >"$T/dir/stale.txt"	# not a socket: not offered for --socket
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind(sys.argv[1])' "$T/dir/sock"

# One bash for all the cases: each case prints "NAME<TAB>got<TAB>want".
export BC T PS_BUILD
out=$(BASH_COMPLETION_USER_DIR=$T/user bash --norc --noprofile <<'EOF' 2>&1
shopt -s extglob progcomp
# shellcheck disable=SC1090
. "$BC"

# The loader finds each file by its command's name.
for c in pingsockctl pingsockd; do
	__load_completion "$c"
	printf 'load_%s\t%s\t%s\n' "$c" "$(complete -p "$c" 2>&1)" \
		"complete -F _$c $c"
done

# comp NAME WANT WORD...: complete the last WORD of the command line.
comp() {
	local name=$1 want=$2 fn got; shift 2
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	fn=_${1##*/}
	"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | xargs)
	printf '%s\t%s\t%s\n' "$name" "$got" "$want"
}
# The long options of a program's --help, sorted.
longopts() { "$1" --help | grep -o -E -- '--[a-z][a-z-]*[a-z]' | sort -u | xargs; }

ctl=$PS_BUILD/pingsockctl d=$PS_BUILD/pingsockd
comp ctl_commands "metrics status table" "$ctl" ""
comp ctl_prefix "status" "$ctl" st
comp ctl_options "$(longopts "$ctl")" "$ctl" --
comp ctl_after_socket "metrics status table" "$ctl" --socket /x ""
comp ctl_after_command "" "$ctl" status ""
comp ctl_socket_arg "$T/dir/sock $T/dir/sub $T/dir/subdir2" "$ctl" -s "$T/dir/s"
comp d_options "$(longopts "$d")" "$d" --
comp d_prefix "--broker-group" "$d" --bro
comp d_mode "auto broker relay" "$d" --mode ""
comp d_mode_prefix "broker" "$d" --mode b
comp d_user "root" "$d" --user roo
comp d_group "root" "$d" --broker-group roo
comp d_config "$T/dir/file.conf" "$d" --config "$T/dir/f"
comp d_log_file "$T/dir/other" "$d" --log-file "$T/dir/o"
comp d_socket "$T/dir/sock $T/dir/sub $T/dir/subdir2" "$d" --socket "$T/dir/s"
comp d_no_arg_after_help "" "$d" --help ""
EOF
)
n=0
while IFS=$'\t' read -r name got want; do
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		pass "$name"
	else
		fail "$name" "got '$got', want '$want'"
	fi
done <<<"$out"
[ "$n" -ge 16 ] || fail run "only $n cases ran: $out"
exit "$FAILED"
