#!/bin/bash
# SPDX-License-Identifier: ISC
# install - make install as a distribution runs it, and make uninstall.
#
#   - make install DESTDIR=... PREFIX=/usr LIBDIR=/usr/lib/MULTIARCH writes
#     no path that an installed Debian package owns (dpkg -S, under both
#     names of a merged /usr: iputils-ping owns /bin/ping, which is
#     /usr/bin/ping), and nothing named ping; every template substituted;
#   - the soname chain libpingsock.so -> .so.0 -> .so.0.1.0, libraries
#     0644, programs 0755; the pkg-config file names the real libdir;
#   - libpingsock.a exports only pingsock_*: a static program that defines
#     its own conn_path, sys and env_get (names of the library's own
#     internals) links with the installed archive and runs; a program
#     links with -lpingsock, and pingsock-ping runs, on the installed .so;
#   - the sysusers.d and tmpfiles.d files make the user, its group and the
#     socket's directory (systemd-sysusers/-tmpfiles --root, in a scratch
#     root whose user database has no pingsock);
#   - debian/pingsockd.postrm purge (in a scratch root, $DPKG_ROOT) leaves
#     no log file of the package's, no /run/pingsock, no pins on a BPF
#     file system;
#   - pingsock-ping-divert, in a scratch root holding a copy of iputils'
#     ping and a dpkg database: ping becomes pingsock-ping, iputils' ping
#     stays as ping.distrib (capabilities kept), --undo restores all, a
#     diversion of someone else's is left alone;
#   - ldconfig runs after an install without DESTDIR, not with one; an
#     older install's bin/ping, ping.8 and lib/libpingsock-preload.so go;
#   - make uninstall leaves nothing: no file, no directory it made.
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
PS_BUILD=${PS_BUILD:-$SRC/build}
T=$(mktemp -d /tmp/pingsock-install.XXXXXX)
chmod 755 "$T"
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

FAILED=0
pass() { echo "PASS: install/$1"; }
fail() { echo "FAIL: install/$1: ${2:-}"; FAILED=1; }
skip() { echo "SKIP: install/$1: ${2:-}"; }

for tool in dpkg-query dpkg-divert readelf nm cc; do
	if ! command -v "$tool" >/dev/null; then
		skip setup "no $tool (a Debian host with build-essential)"
		exit 0
	fi
done
MA=$(cc -print-multiarch 2>/dev/null)
[ -n "$MA" ] || MA=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)
LIBDIR=/usr/lib/$MA
DEST=$T/dest
mkdir -p "$DEST"
VARS=(BUILD="$PS_BUILD" PREFIX=/usr LIBDIR="$LIBDIR" CREATE_USER=no
      LDCONFIG="$T/ldconfig")
# A stand-in for ldconfig, which says it ran.
printf '#!/bin/sh\ntouch %s/ldconfig.ran\n' "$T" >"$T/ldconfig"
chmod 755 "$T/ldconfig"

# -o all: install what PS_BUILD holds, never rebuild it here (the ASan
# pass's objects would be rebuilt without ASan).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$SRC" -o all "$@"; }

if mk install DESTDIR="$DEST" "${VARS[@]}" >"$T/install.log" 2>&1; then
	pass make_install_destdir
else
	fail make_install_destdir "$(tail -20 "$T/install.log")"
	exit 1
fi
[ ! -e "$T/ldconfig.ran" ] && pass no_ldconfig_with_destdir ||
	fail no_ldconfig_with_destdir "ldconfig ran for a DESTDIR install"

# --- what was written, against dpkg's database ---

mapfile -t FILES < <(cd "$DEST" && find . ! -type d | sed 's|^\.||' | sort)
[ ${#FILES[@]} -gt 10 ] && pass files_written "${#FILES[@]}" ||
	fail files_written "only ${#FILES[@]}: ${FILES[*]}"

# The names dpkg may know a path by: on a merged /usr, /bin, /sbin and
# /lib* are /usr's, and dpkg records whichever name the package shipped.
aliases() {
	echo "$1"
	case $1 in
	/usr/bin/*|/usr/sbin/*|/usr/lib/*|/usr/lib32/*|/usr/lib64/*|/usr/libx32/*)
		echo "${1#/usr}" ;;
	/bin/*|/sbin/*|/lib/*|/lib32/*|/lib64/*|/libx32/*)
		echo "/usr$1" ;;
	esac
}
# owners PATH...: "package: path" for each path a package other than
# pingsock's own owns.
OURS='^(pingsockd|libpingsock0|libpingsock-dev|pingsock-preload)$'
owners() {
	local p a
	for p in "$@"; do aliases "$p"; done | sort -u |
	xargs -r dpkg-query -S 2>/dev/null |
	while IFS= read -r line; do
		case $line in diversion\ by*|local\ diversion*) continue ;; esac
		pkgs=${line%%: /*}
		for a in ${pkgs//,/ }; do
			[[ $a =~ $OURS ]] || echo "$line"
		done
	done
}

# The check itself finds iputils' ping under its other name.
if dpkg-query -W -f='${Status}' iputils-ping 2>/dev/null | grep -q 'ok installed'; then
	o=$(owners /usr/bin/ping)
	grep -q '^iputils-ping: ' <<<"$o" && pass dpkg_check_sees_merged_usr ||
		fail dpkg_check_sees_merged_usr "dpkg -S of /usr/bin/ping and /bin/ping: '$o'"
else
	skip dpkg_check_sees_merged_usr "iputils-ping is not installed (.ci/packages has it)"
fi

clash=$(owners "${FILES[@]}")
[ -z "$clash" ] && pass no_path_of_another_package ||
	fail no_path_of_another_package "$clash"

named_ping=$(cd "$DEST" && find . \( -name ping -o -name 'ping.[0-9]*' \) | head)
[ -z "$named_ping" ] && pass nothing_named_ping ||
	fail nothing_named_ping "$named_ping"

want=(/usr/bin/pingsock-ping /usr/bin/pingsockctl /usr/bin/pingsock-run
      /usr/sbin/pingsockd /usr/sbin/pingsock-ping-divert
      "$LIBDIR/libpingsock.so.0.1.0" "$LIBDIR/libpingsock.so.0"
      "$LIBDIR/libpingsock.so" "$LIBDIR/libpingsock.a"
      "$LIBDIR/pingsock/libpingsock-preload.so" /usr/include/pingsock.h
      "$LIBDIR/pkgconfig/pingsock.pc" /usr/share/man/man8/pingsock-ping.8
      /usr/share/man/man8/pingsock-ping-divert.8 /usr/share/man/man8/pingsockd.8
      /usr/share/man/man8/pingsock-preload.8 /usr/share/man/man3/pingsock.3
      /usr/lib/systemd/system/pingsockd.service
      /usr/lib/systemd/system/pingsockd.socket
      /usr/lib/sysusers.d/pingsockd.conf /usr/lib/tmpfiles.d/pingsockd.conf)
missing=()
for f in "${want[@]}"; do
	[ -e "$DEST$f" ] || [ -L "$DEST$f" ] || missing+=("$f")
done
[ ${#missing[@]} = 0 ] && pass expected_files || fail expected_files "missing: ${missing[*]}"

# Every @NAME@ of the templates replaced.
left=$(cd "$DEST" && grep -rlIE '@[A-Z_]+@' . 2>/dev/null)
[ -z "$left" ] && pass templates_substituted || fail templates_substituted "$left"
grep -qx 'ExecStart=/usr/sbin/pingsockd .*' "$DEST/usr/lib/systemd/system/pingsockd.service" &&
	pass unit_execstart_usr_sbin ||
	fail unit_execstart_usr_sbin "$(grep ExecStart "$DEST/usr/lib/systemd/system/pingsockd.service")"

# --- the libraries ---

L=$DEST$LIBDIR
l1=$(readlink "$L/libpingsock.so") l2=$(readlink "$L/libpingsock.so.0")
soname=$(readelf -d "$L/libpingsock.so.0.1.0" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$l1" = libpingsock.so.0 ] && [ "$l2" = libpingsock.so.0.1.0 ] &&
	[ -f "$L/libpingsock.so.0.1.0" ] && [ ! -L "$L/libpingsock.so.0.1.0" ] &&
	[ "$soname" = libpingsock.so.0 ] && pass soname_chain ||
	fail soname_chain "so -> '$l1', so.0 -> '$l2', SONAME '$soname'"

modes=""
for f in "$L/libpingsock.so.0.1.0" "$L/libpingsock.a" "$L/pingsock/libpingsock-preload.so" \
	 "$L/pkgconfig/pingsock.pc" "$DEST/usr/include/pingsock.h"; do
	m=$(stat -c %a "$f" 2>/dev/null)
	[ "$m" = 644 ] || modes="$modes ${f#"$DEST"}:$m"
done
for f in /usr/bin/pingsock-ping /usr/bin/pingsockctl /usr/bin/pingsock-run \
	 /usr/sbin/pingsockd /usr/sbin/pingsock-ping-divert; do
	m=$(stat -c %a "$DEST$f" 2>/dev/null)
	[ "$m" = 755 ] || modes="$modes $f:$m"
done
[ -z "$modes" ] && pass modes_libraries_0644_programs_0755 ||
	fail modes_libraries_0644_programs_0755 "$modes"

pc=$DEST$LIBDIR/pkgconfig/pingsock.pc
if command -v pkg-config >/dev/null; then
	pcv() { PKG_CONFIG_LIBDIR=${pc%/*} pkg-config --variable="$1" pingsock 2>&1; }
	v="$(pcv libdir) $(pcv includedir)"
	libs=$(PKG_CONFIG_LIBDIR=${pc%/*} pkg-config --libs pingsock 2>&1)
else
	v="$(sed -n 's/^libdir=//p' "$pc") $(sed -n 's/^includedir=//p' "$pc")"
	libs=-lpingsock
fi
[ "$v" = "$LIBDIR /usr/include" ] && pass pkgconfig_dirs ||
	fail pkgconfig_dirs "libdir, includedir: '$v'"

exported=$(nm -g --defined-only "$L/libpingsock.a" 2>/dev/null |
	awk 'NF == 3 { print $3 }' | grep -v '^pingsock_' | head -5)
napi=$(nm -g --defined-only "$L/libpingsock.a" 2>/dev/null | grep -c ' T pingsock_')
[ -z "$exported" ] && [ "$napi" -ge 19 ] && pass static_exports_only_api ||
	fail static_exports_only_api "$napi pingsock_ calls; others: $exported"

# A program whose own names are the library's internal ones.  The ASan
# pass's archive needs the sanitizer's runtime, which has no static form.
cat >"$T/clash.c" <<'EOF'
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <pingsock.h>
const char *conn_path(void);
int env_get(int);
int sys = 42;
const char *conn_path(void) { return "mine"; }
int env_get(int x) { return x + 1; }
int main(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	if (fd >= 0)
		pingsock_close(fd);
	else if (!pingsock_why() || !*pingsock_why())
		return 2;
	printf("%s %d %d\n", conn_path(), sys, env_get(1));
	return 0;
}
EOF
# One option with a comma in it, not two elements (SC2054).
# shellcheck disable=SC2054
case $PS_BUILD in
*asan) LINK=(-fsanitize=address,undefined) ;;
*)     LINK=(-static) ;;
esac
if cc "${LINK[@]}" -I"$DEST/usr/include" -o "$T/clash" "$T/clash.c" \
	"$L/libpingsock.a" >"$T/clash.log" 2>&1; then
	out=$(PINGSOCK_SOCKET=$T/nosock "$T/clash" 2>&1)
	rc=$?
	[ $rc = 0 ] && [ "$out" = "mine 42 2" ] && pass static_program_own_conn_path ||
		fail static_program_own_conn_path "exit $rc: $out"
else
	fail static_program_own_conn_path "link: $(head -5 "$T/clash.log")"
fi

# -lpingsock finds the .so (its link), and runs on .so.0.
cat >"$T/dyn.c" <<'EOF'
#include <netinet/in.h>
#include <sys/socket.h>
#include <pingsock.h>
int main(void)
{
	int fd = pingsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);

	return fd >= 0 ? pingsock_close(fd) : !pingsock_why();
}
EOF
# shellcheck disable=SC2054
case $PS_BUILD in *asan) DL=(-fsanitize=address,undefined) ;; *) DL=() ;; esac
# shellcheck disable=SC2086
if cc "${DL[@]}" -I"$DEST/usr/include" -o "$T/dyn" "$T/dyn.c" -L"$L" $libs \
	>"$T/dyn.log" 2>&1 &&
	readelf -d "$T/dyn" | grep -q 'NEEDED.*\[libpingsock.so.0\]' &&
	PINGSOCK_SOCKET=$T/nosock LD_LIBRARY_PATH=$L "$T/dyn"; then
	pass dynamic_program_lpingsock
else
	fail dynamic_program_lpingsock "$(head -5 "$T/dyn.log")"
fi
out=$(LD_LIBRARY_PATH=$L "$DEST/usr/bin/pingsock-ping" -V 2>&1)
needed=$(readelf -d "$DEST/usr/bin/pingsock-ping" | grep -c 'NEEDED.*\[libpingsock.so.0\]')
[ "$needed" = 1 ] && grep -q '^ping from pingsock ' <<<"$out" &&
	pass pingsock_ping_on_installed_so || fail pingsock_ping_on_installed_so "$out"

# --- sysusers.d and tmpfiles.d, in a scratch root ---

if command -v systemd-sysusers >/dev/null && command -v systemd-tmpfiles >/dev/null; then
	R=$T/sysroot
	mkdir -p "$R/etc"
	for f in passwd group shadow gshadow; do
		[ -e "/etc/$f" ] && grep -v '^pingsock:' "/etc/$f" >"$R/etc/$f"
	done
	systemd-sysusers --root="$R" "$DEST/usr/lib/sysusers.d/pingsockd.conf" \
		>"$T/sysusers.log" 2>&1
	u=$(grep '^pingsock:' "$R/etc/passwd")
	g=$(grep '^pingsock:' "$R/etc/group")
	IFS=: read -r _ _ uid gid _ home shell <<<"$u"
	[ -n "$u" ] && [ "${g#pingsock:x:}" = "$gid:" ] && [ "$uid" -lt 1000 ] &&
		[ "$shell" = /usr/sbin/nologin ] && [ "$home" = /nonexistent ] &&
		pass sysusers_creates_user || fail sysusers_creates_user "'$u' '$g': $(cat "$T/sysusers.log")"
	systemd-tmpfiles --root="$R" --create "$DEST/usr/lib/tmpfiles.d/pingsockd.conf" \
		>"$T/tmpfiles.log" 2>&1
	st=$(stat -c '%u %g %a' "$R/run/pingsock" 2>/dev/null)
	[ "$st" = "0 $gid 775" ] && pass tmpfiles_socket_dir ||
		fail tmpfiles_socket_dir "'$st' (want 0 $gid 775): $(cat "$T/tmpfiles.log")"
else
	skip sysusers_creates_user "no systemd-sysusers/systemd-tmpfiles (Debian package systemd)"
fi

# --- debian/pingsockd.postrm purge, in a scratch root ($DPKG_ROOT) ---
# It removes what the package made and left: /run/pingsock (empty), the
# log file the shipped logrotate snippet rotates and its rotations, and
# broker mode's pins (a pinned map) on a BPF file system, mounted in a
# mount namespace of its own (the kernel's own maps.debug, progs.debug
# stay).  Another log file stays.

if [ "$(id -u)" = 0 ] && command -v bpftool >/dev/null; then
	P=$T/purgeroot
	mkdir -p "$P/run/pingsock" "$P/var/log" "$P/sys/fs/bpf"
	for f in pingsockd.log pingsockd.log.1 pingsockd.log.2.gz other.log; do
		echo x >"$P/var/log/$f"
	done
	# shellcheck disable=SC2016
	pins=$(unshare -m sh -c 'mount --make-rprivate / &&
		mount -t bpf bpf "$1/sys/fs/bpf" && mkdir "$1/sys/fs/bpf/pingsock" &&
		bpftool map create "$1/sys/fs/bpf/pingsock/users" type hash \
			key 4 value 8 entries 4 name users &&
		[ -e "$1/sys/fs/bpf/pingsock/users" ] &&
		DPKG_ROOT=$1 sh "$2" purge &&
		if [ -e "$1/sys/fs/bpf/pingsock" ]; then ls -lR "$1/sys/fs/bpf"; else echo ok; fi' \
		sh "$P" "$SRC/debian/pingsockd.postrm" 2>&1)
	left=$(cd "$P" && find . -mindepth 1 | sort | tr '\n' ' ')
	[ "$pins" = ok ] &&
		[ "$left" = "./run ./sys ./sys/fs ./sys/fs/bpf ./var ./var/log ./var/log/other.log " ] &&
		pass postrm_purge_leaves_nothing ||
		fail postrm_purge_leaves_nothing "left: $left; bpffs: $pins"
else
	skip postrm_purge_leaves_nothing "needs root and bpftool"
fi

# --- pingsock-ping-divert, in a scratch root ---

D=$T/divroot
mkdir -p "$D/usr/bin" "$D/usr/share/man/man8" "$D/var/lib/dpkg/info" \
	"$D/var/lib/dpkg/updates"
ln -s usr/bin "$D/bin"
touch "$D/var/lib/dpkg/status" "$D/var/lib/dpkg/diversions"
cp -a "$DEST/usr" "$D/"
if [ -e /usr/bin/ping ]; then
	cp -a /usr/bin/ping "$D/usr/bin/ping"
else
	printf '#!/bin/sh\necho iputils\n' >"$D/usr/bin/ping"; chmod 755 "$D/usr/bin/ping"
fi
echo 'iputils ping.8' | gzip >"$D/usr/share/man/man8/ping.8.gz"
cp -a "$D/usr/bin/ping" "$T/ping.orig"
caps=$(getcap "$D/usr/bin/ping" 2>/dev/null | sed 's/^[^ ]* //')
divert() { DPKG_ROOT=$D "$DEST/usr/sbin/pingsock-ping-divert" "$@"; }

out=$(divert --help 2>&1)
grep -q -- '--undo' <<<"$out" && pass divert_help || fail divert_help "$out"
divert --status >/dev/null 2>&1 && fail divert_status_before "says diverted" ||
	pass divert_status_before

out=$(divert 2>&1)
rc=$?
lst=$(dpkg-divert --root="$D" --list | sort)
if [ $rc = 0 ] && [ "$(readlink "$D/usr/bin/ping")" = /usr/bin/pingsock-ping ] &&
	cmp -s "$D/usr/bin/ping.distrib" "$T/ping.orig" &&
	[ "$(getcap "$D/usr/bin/ping.distrib" 2>/dev/null | sed 's/^[^ ]* //')" = "$caps" ] &&
	[ "$(readlink "$D/usr/share/man/man8/ping.8")" = /usr/share/man/man8/pingsock-ping.8 ] &&
	zcat "$D/usr/share/man/man8/ping.distrib.8.gz" 2>/dev/null | grep -q '^iputils' &&
	[ "$(grep -c '^local diversion of ' <<<"$lst")" = 3 ]; then
	pass divert_makes_pingsock_ping_the_ping
else
	fail divert_makes_pingsock_ping_the_ping "exit $rc: $out; $lst; $(ls -l "$D/usr/bin")"
fi
divert --status >/dev/null 2>&1 && pass divert_status_after || fail divert_status_after
out=$(divert 2>&1) && [ "$(readlink "$D/usr/bin/ping")" = /usr/bin/pingsock-ping ] &&
	pass divert_twice_is_harmless || fail divert_twice_is_harmless "$out"

out=$(divert --undo 2>&1)
rc=$?
if [ $rc = 0 ] && [ ! -L "$D/usr/bin/ping" ] && cmp -s "$D/usr/bin/ping" "$T/ping.orig" &&
	[ ! -e "$D/usr/bin/ping.distrib" ] && [ -f "$D/usr/share/man/man8/ping.8.gz" ] &&
	[ ! -e "$D/usr/share/man/man8/ping.8" ] && [ ! -L "$D/usr/share/man/man8/ping.8" ] &&
	[ -z "$(dpkg-divert --root="$D" --list)" ]; then
	pass divert_undo_restores
else
	fail divert_undo_restores "exit $rc: $out; $(dpkg-divert --root="$D" --list); $(ls -l "$D/usr/bin")"
fi

dpkg-divert --root="$D" --local --no-rename --divert /usr/bin/ping.other \
	--add /usr/bin/ping >/dev/null
out=$(divert 2>&1)
rc=$?
[ $rc != 0 ] && [ ! -L "$D/usr/bin/ping" ] && grep -q 'not by pingsock-ping-divert' <<<"$out" &&
	pass divert_leaves_foreign_diversion || fail divert_leaves_foreign_diversion "exit $rc: $out"

# --- ldconfig without DESTDIR (as root) ---

# The prefix holds what an older make install left: its ping as bin/ping
# (which shadows iputils' in PATH), ping.8, the shim in lib/: make
# install removes them; a bin/ping of someone else's stays.
if [ "$(id -u)" = 0 ]; then
	P=$T/pfx
	mkdir -p "$P/bin" "$P/lib" "$P/share/man/man8"
	printf '#!/bin/sh\necho "ping from pingsock 0.0"\n' >"$P/bin/ping"
	printf '.TH PING 8 "" "pingsock 0.0"\n' >"$P/share/man/man8/ping.8"
	cp "$PS_BUILD/libpingsock-preload.so" "$P/lib/"
	rm -f "$T/ldconfig.ran"
	if mk install PREFIX="$P" BUILD="$PS_BUILD" CREATE_USER=no \
		LDCONFIG="$T/ldconfig" >"$T/install2.log" 2>&1 && [ -e "$T/ldconfig.ran" ]; then
		pass ldconfig_after_install
	else
		fail ldconfig_after_install "$(tail -5 "$T/install2.log")"
	fi
	[ ! -e "$P/bin/ping" ] && [ ! -e "$P/share/man/man8/ping.8" ] &&
		[ ! -e "$P/lib/libpingsock-preload.so" ] && [ -e "$P/lib/pingsock/libpingsock-preload.so" ] &&
		pass older_layout_removed || fail older_layout_removed "$(cat "$T/install2.log")"
	mk uninstall PREFIX="$P" BUILD="$PS_BUILD" >>"$T/install2.log" 2>&1
	left=$(cd "$P" && find . ! -type d)
	[ -z "$left" ] && pass uninstall_prefix_leaves_nothing_of_ours ||
		fail uninstall_prefix_leaves_nothing_of_ours "$left"
	cp /bin/true "$P/bin/ping"
	mk install PREFIX="$P" BUILD="$PS_BUILD" CREATE_USER=no LDCONFIG=true \
		>>"$T/install2.log" 2>&1
	mk uninstall PREFIX="$P" BUILD="$PS_BUILD" >>"$T/install2.log" 2>&1
	left=$(cd "$P" && find . ! -type d)
	[ "$left" = ./bin/ping ] && cmp -s "$P/bin/ping" /bin/true &&
		pass others_ping_kept || fail others_ping_kept "$left"
fi

# --- uninstall ---

if mk uninstall DESTDIR="$DEST" "${VARS[@]}" >"$T/uninstall.log" 2>&1; then
	left=$(cd "$DEST" && find . -mindepth 1 | head -20)
	[ -z "$left" ] && pass uninstall_leaves_nothing ||
		fail uninstall_leaves_nothing "$left"
else
	fail uninstall_leaves_nothing "$(tail -10 "$T/uninstall.log")"
fi

exit $FAILED
