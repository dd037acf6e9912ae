# SPDX-License-Identifier: ISC
# pingsock - build, test, install.
#
#   make                 build everything into build/
#   make programs        only what make install installs (packagers)
#   make check           unit, integration and conformance tests, then the
#                        same suite again built with ASan+UBSan (build-asan/);
#                        as root it first installs what the tests need
#                        (tests/deps: .ci/test-packages)
#   make bench           pingsock against the kernel's own ping socket
#   make install PREFIX=/usr/local DESTDIR=
#                        the directory variables below; also the systemd
#                        units, sysusers.d and tmpfiles.d files and, run as
#                        root without DESTDIR, the system user DAEMON_USER
#                        and ldconfig
#   make uninstall       the same variables: removes what install wrote
#
# CFLAGS, CPPFLAGS, LDFLAGS, CC, AR, OBJCOPY: the builder's, from the command
# line or the environment; WERROR= builds without -Werror.
#
# Sources are found by directory, so a new file needs no Makefile change:
#   src/engine, src/wire  pure code (libpscore.a), no I/O
#   src/lib               libpingsock (+ core)
#   src/daemon            pingsockd
#   src/ping              ping (build/ping) and pingsock-ping, its installed
#                         name (linked with libpingsock.so)
#   src/ctl               pingsockctl (+ libpingsock's request client)
#   src/divert            pingsock-ping-divert (a shell script, substituted)
#   tests/unit/test_*.c   one binary each, linked with the core
#   tests/lib/*.c         test helper programs, linked with libpingsock-internal.a
#   tests/conformance/*.c conformance case programs, linked with
#                         libpingsock-internal.a
#   bench/*.c             benchmark programs, linked with libpingsock-internal.a

VERSION := 0.1.0
SOVERSION := 0

# Where make install puts things.  Every variable can be given on the
# command line or in the environment; DESTDIR is prepended to each.
#   Debian: PREFIX=/usr LIBDIR=/usr/lib/$(DEB_HOST_MULTIARCH) (debian/rules).
# SYSCONFDIR follows PREFIX as GNU's sysconfdir does ($(PREFIX)/etc), but
# is /etc for PREFIX=/usr: a build for /usr/local reads
# /usr/local/etc/pingsock/pingsockd.conf, never the packaged daemon's
# /etc/pingsock/pingsockd.conf (pass SYSCONFDIR=/etc for that).  The daemon's
# default configuration file is compiled in: give the same SYSCONFDIR to
# make and to make install.
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
SBINDIR    ?= $(PREFIX)/sbin
LIBDIR     ?= $(PREFIX)/lib
# pingsock's private directory: libpingsock-preload.so, never on the
# loader's path (LD_PRELOAD names it in full).
PKGLIBDIR  ?= $(LIBDIR)/pingsock
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# systemd looks in /usr/local/lib/systemd/system and /usr/lib/systemd/system
# (and /etc/systemd/system), and so for sysusers.d and tmpfiles.d:
# $(PREFIX)/lib/... suits both prefixes; another PREFIX needs
# SYSTEMDUNITDIR=/etc/systemd/system (Debian bookworm: /lib/systemd/system).
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
# The unit's --user.  CREATE_USER=auto creates it when make install runs as
# root without DESTDIR and it is missing (systemd-sysusers with the
# installed sysusers.d file, else useradd --system); no: never.
DAEMON_USER ?= pingsock
CREATE_USER ?= auto
LDCONFIG ?= ldconfig
INSTALL  ?= install
OBJCOPY  ?= objcopy
BUILD   ?= build
SAN     ?=

# CFLAGS, CPPFLAGS and LDFLAGS are the builder's (dpkg-buildflags'
# hardening, say): the project's own flags are kept apart (PS_*) and put
# before them, never replaced by them.  -Werror is the developer's and
# CI's: packagers build with WERROR= (debian/rules does).
CC      ?= cc
CFLAGS  ?= -O2 -g
CPPFLAGS ?=
LDFLAGS ?=
WERROR  ?= -Werror
WARN    := -Wall -Wextra $(WERROR) -Wshadow -Wformat=2 -Wstrict-prototypes \
           -Wmissing-prototypes -Wno-unused-parameter
PS_CPPFLAGS := -D_GNU_SOURCE -Iinclude -Isrc -DPINGSOCK_VERSION=\"$(VERSION)\" \
           -DPSD_CONFIG_DEFAULT=\"$(SYSCONFDIR)/pingsock/pingsockd.conf\"
PS_CFLAGS := -std=gnu11 $(WARN)
PS_LDFLAGS :=
ALLCPPFLAGS = $(PS_CPPFLAGS) $(CPPFLAGS)
ALLCFLAGS = $(PS_CFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -MMD -MP
ALLLDFLAGS = $(PS_LDFLAGS) $(LDFLAGS)
LDLIBS_D := -lcap -lseccomp -lbpf
# Broker mode's BPF programs (src/bpf/): compiled for the BPF target and
# embedded in the daemon as a libbpf skeleton (bpftool gen skeleton).
BPF_CLANG ?= clang
BPFTOOL ?= bpftool
BPF_CFLAGS ?= -O2 -g
BPF_ARCH_INC := /usr/include/$(shell $(CC) -print-multiarch 2>/dev/null)

ifeq ($(SAN),1)
PS_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
PS_LDFLAGS += -fsanitize=address,undefined
endif

CORE_SRC   := $(wildcard src/engine/*.c src/wire/*.c)
LIB_SRC    := $(wildcard src/lib/*.c)
DAEMON_SRC := $(wildcard src/daemon/*.c)
PING_SRC   := $(wildcard src/ping/*.c)
CTL_SRC    := $(wildcard src/ctl/*.c)
RUN_SRC    := $(wildcard src/run/*.c)
SHIM_SRC   := $(wildcard src/shim/*.c)
UNIT_SRC   := $(wildcard tests/unit/test_*.c)
UNITLIB_SRC := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
TLIB_SRC   := $(wildcard tests/lib/*.c)
CONF_SRC   := $(wildcard tests/conformance/*.c)
BENCH_SRC  := $(wildcard bench/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

CORE_A   := $(BUILD)/libpscore.a
# The programs and tests of the tree link the library's objects as they
# are (libpingsock-internal.a: pingsockctl and pingsock-run call its
# internal functions); libpingsock.a, the one installed, exports only the
# API (pingsock_*), so that a program's own names never clash with ours.
LIB_INT_A := $(BUILD)/libpingsock-internal.a
LIB_A    := $(BUILD)/libpingsock.a
LIB_SO   := $(BUILD)/libpingsock.so
DAEMON   := $(BUILD)/pingsockd
# ping: the build's, linked with the library's objects (the tests run
# it from a copy); pingsock-ping: the installed one, the same program
# linked with libpingsock.so.0.
PING     := $(BUILD)/ping
PING_DYN := $(BUILD)/pingsock-ping
CTL      := $(BUILD)/pingsockctl
RUN      := $(BUILD)/pingsock-run
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
TLIBS    := $(patsubst tests/lib/%.c,$(BUILD)/tests/lib/%,$(TLIB_SRC))
CONFS    := $(patsubst tests/conformance/%.c,$(BUILD)/tests/conformance/%,$(CONF_SRC))
CONFS   += $(patsubst tests/conformance/%.c,$(BUILD)/tests/conformance-plain/%,$(CONF_SRC))
BENCHES  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
PCFILE   := $(BUILD)/pingsock.pc
# The systemd units: systemd/NAME.in (substituted) or systemd/NAME, for
# each .service and .socket there.
UNIT_IN    := $(wildcard systemd/*.service.in systemd/*.socket.in)
UNIT_PLAIN := $(wildcard systemd/*.service systemd/*.socket)
UNIT_NAMES := $(notdir $(UNIT_IN:.in=) $(UNIT_PLAIN))
SDUNITS  := $(addprefix $(BUILD)/systemd/,$(UNIT_NAMES))

SHIM_SO  := $(if $(SHIM_SRC),$(BUILD)/libpingsock-preload.so)
PROGRAMS := $(DAEMON) $(PING) $(PING_DYN) $(CTL) $(RUN)
# What make install installs (and debian/rules builds: make programs).
INSTALLED := $(LIB_A) $(LIB_SO) $(SHIM_SO) $(DAEMON) $(PING_DYN) $(CTL) $(RUN)
MANPAGES := $(patsubst man/%,$(BUILD)/man/%,$(wildcard man/*.[138]))
ALL := $(CORE_A) $(LIB_INT_A) $(LIB_A) $(LIB_SO) $(SHIM_SO) $(PROGRAMS) \
       $(PCFILE) $(SDUNITS) $(MANPAGES) \
       $(UNITS) $(TLIBS) $(CONFS) $(BENCHES)

.PHONY: all programs check check-fast bench install uninstall clean lint \
	fuzz fuzz-build
all: $(ALL)
programs: $(INSTALLED)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCPPFLAGS) $(ALLCFLAGS) -c -o $@ $<

# The skeleton: the object's bytes and typed handles for guard.c.
GUARD_SKEL := $(BUILD)/bpf/guard.skel.h
$(BUILD)/bpf/guard.bpf.o: src/bpf/guard.bpf.c src/bpf/guard_abi.h \
	src/bpf/guard_maps.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) $(BPF_CFLAGS) -target bpf -Wall -Werror -Isrc \
	  -I$(BPF_ARCH_INC) -c -o $@ $<
$(GUARD_SKEL): $(BUILD)/bpf/guard.bpf.o
	$(BPFTOOL) gen skeleton $< name guard_bpf > $@.tmp && mv $@.tmp $@
# The netfilter program, an object of its own (its licence, guard_nf.bpf.c).
GUARD_NF_SKEL := $(BUILD)/bpf/guard_nf.skel.h
$(BUILD)/bpf/guard_nf.bpf.o: src/bpf/guard_nf.bpf.c src/bpf/guard_abi.h \
	src/bpf/guard_maps.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) $(BPF_CFLAGS) -target bpf -Wall -Werror -Isrc \
	  -I$(BPF_ARCH_INC) -c -o $@ $<
$(GUARD_NF_SKEL): $(BUILD)/bpf/guard_nf.bpf.o
	$(BPFTOOL) gen skeleton $< name guard_nf_bpf > $@.tmp && mv $@.tmp $@
GUARD_ELF_O := $(BUILD)/obj/src/daemon/guardelf.o \
	       $(BUILD)/obj/testing/src/daemon/guardelf.o
$(GUARD_ELF_O): $(GUARD_SKEL) $(GUARD_NF_SKEL)
$(GUARD_ELF_O): PS_CPPFLAGS += -I$(BUILD)/bpf

$(CORE_A): $(call obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB_INT_A): $(call obj,$(LIB_SRC) $(CORE_SRC))
	rm -f $@ && $(AR) rcs $@ $^

# The installed static library: the objects linked into one (ld -r), every
# symbol but pingsock_* made local to it (the internal ones are hidden:
# -fvisibility=hidden), in an archive of that one member.
$(LIB_A): $(call obj,$(LIB_SRC) $(CORE_SRC))
	@mkdir -p $(BUILD)/pub
	$(CC) -nostdlib -r -o $(BUILD)/pub/libpingsock.o $^
	$(OBJCOPY) --localize-hidden --wildcard --keep-global-symbol='pingsock_*' \
	  $(BUILD)/pub/libpingsock.o
	rm -f $@ && $(AR) rcs $@ $(BUILD)/pub/libpingsock.o

$(LIB_SO): $(call obj,$(LIB_SRC) $(CORE_SRC)) src/lib/libpingsock.map
	$(CC) -shared $(ALLLDFLAGS) -Wl,--version-script=src/lib/libpingsock.map \
	  -Wl,-soname,libpingsock.so.$(SOVERSION) -o $@ $(call obj,$(LIB_SRC) $(CORE_SRC))

# The LD_PRELOAD shim: the library plus the interposed libc calls; it
# exports those calls (its own version script) and nothing of the API.
$(BUILD)/libpingsock-preload.so: $(call obj,$(SHIM_SRC) $(LIB_SRC) $(CORE_SRC)) src/shim/shim.map
	$(CC) -shared $(ALLLDFLAGS) -Wl,--version-script=src/shim/shim.map \
	  -o $@ $(call obj,$(SHIM_SRC) $(LIB_SRC) $(CORE_SRC)) -ldl -lpthread

$(DAEMON): $(call obj,$(DAEMON_SRC)) $(CORE_A)
	$(CC) $(ALLLDFLAGS) -o $@ $^ $(LDLIBS_D)

$(PING): $(call obj,$(PING_SRC)) $(LIB_INT_A)
	$(CC) $(ALLLDFLAGS) -o $@ $^ -lm

# Linked with the file: its DT_NEEDED is the soname, libpingsock.so.0.
$(PING_DYN): $(call obj,$(PING_SRC)) $(LIB_SO)
	$(CC) $(ALLLDFLAGS) -o $@ $(call obj,$(PING_SRC)) $(LIB_SO) -lm

$(RUN): $(call obj,$(RUN_SRC)) $(LIB_INT_A)
	$(CC) $(ALLLDFLAGS) -o $@ $^ -lseccomp -lpthread

# A statically linked program making raw system calls, for
# tests/integration/run.sh: never with the sanitizers (no static ASan).
STATIC_T := $(BUILD)/tests/static/rawsys
all: $(STATIC_T)
$(STATIC_T): tests/static/rawsys.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCPPFLAGS) -std=gnu11 $(WARN) -O2 -static -o $@ $<

# The daemon again with the sandbox's test trigger (-DPSD_TESTING: SIGUSR1
# or SIGUSR2 make it try a forbidden system call), for
# tests/integration/sandbox.sh only; never installed.
SBTEST := $(BUILD)/tests/lib/pingsockd-sandboxtest
all: $(SBTEST)
$(BUILD)/obj/testing/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCPPFLAGS) -DPSD_TESTING $(ALLCFLAGS) -c -o $@ $<
$(SBTEST): $(patsubst %.c,$(BUILD)/obj/testing/%.o,$(DAEMON_SRC)) $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^ $(LDLIBS_D)

# pingsockctl calls through the library's request client (lib/call.h):
# from the static library, only that and what it needs is linked in.
$(CTL): $(call obj,$(CTL_SRC)) $(LIB_INT_A)
	$(CC) $(ALLLDFLAGS) -o $@ $^

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(call obj,$(UNITLIB_SRC)) $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^

# The daemon's event loop and users' shares are tested on their own.
$(BUILD)/tests/unit/test_loop: $(call obj,src/daemon/loop.c src/daemon/share.c)
$(BUILD)/tests/unit/test_mapwalk: $(call obj,src/daemon/mapwalk.c)
$(BUILD)/tests/unit/test_arena: $(call obj,src/daemon/arena.c)
# hostenv.c calls the core: linked before it.
$(BUILD)/tests/unit/test_hostenv: $(BUILD)/obj/tests/unit/test_hostenv.o $(call obj,src/daemon/hostenv.c) $(call obj,$(UNITLIB_SRC)) $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^

$(BUILD)/tests/lib/%: $(BUILD)/obj/tests/lib/%.o $(LIB_INT_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^ -lm

$(BUILD)/tests/conformance/%: $(BUILD)/obj/tests/conformance/%.o $(LIB_INT_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^ -lm

# The same cases as plain libc programs (-DCONF_PLAIN, plain.h), without
# libpingsock: run.sh runs them under the shim (CONF_SHIM=1).
$(BUILD)/obj/tests/conformance-plain/%.o: tests/conformance/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALLCPPFLAGS) -DCONF_PLAIN $(ALLCFLAGS) -c -o $@ $<

$(BUILD)/tests/conformance-plain/%: $(BUILD)/obj/tests/conformance-plain/%.o
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^ -lm

# A plain libc program (no libpingsock) for tests/integration/shim_prog.sh.
SHIMPROG := $(BUILD)/tests/shimprog/shimprog
all: $(SHIMPROG)
$(SHIMPROG): $(BUILD)/obj/tests/shimprog/shimprog.o
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^ -lpthread

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIB_INT_A)
	@mkdir -p $(dir $@)
	$(CC) $(ALLLDFLAGS) -o $@ $^ -lm

# Files made from templates: every @NAME@ below replaced by the value of
# that variable.  The build's copies (for this build's variables) are for
# reading and checking (mandoc -T lint $(BUILD)/man/*); make install
# substitutes again with its own, as given to it.
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	-e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@PKGLIBDIR@|$(PKGLIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@MANDIR@|$(MANDIR)|g' \
	-e 's|@SYSTEMDUNITDIR@|$(SYSTEMDUNITDIR)|g' \
	-e 's|@DAEMON_USER@|$(DAEMON_USER)|g' -e 's|@VERSION@|$(VERSION)|g'

$(PCFILE): pingsock.pc.in
	@mkdir -p $(dir $@)
	$(SUBST) $< > $@
$(BUILD)/systemd/%: systemd/%.in
	@mkdir -p $(dir $@)
	$(SUBST) $< > $@
$(BUILD)/systemd/%: systemd/%
	@mkdir -p $(dir $@)
	cp $< $@
$(BUILD)/man/%: man/%
	@mkdir -p $(dir $@)
	$(SUBST) $< > $@
$(BUILD)/pingsock-ping-divert: src/divert/pingsock-ping-divert.in
	@mkdir -p $(dir $@)
	$(SUBST) $< > $@ && chmod 0755 $@
SDUNITS += $(BUILD)/systemd/pingsockd.sysusers $(BUILD)/systemd/pingsockd.tmpfiles
all: $(SDUNITS) $(BUILD)/pingsock-ping-divert

# The whole suite, then again under ASan+UBSan.  tests/run prints the
# closing "N passed, N failed" line over both passes.  The sanitizer
# build is made while the first pass runs, at the lowest priority
# (tests/run's PREBUILD), and takes every processor unless make was
# given -j.
CHECK_JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
check: all
	tests/deps
	PREBUILD='$(MAKE) --no-print-directory $(CHECK_JOBS) BUILD=build-asan SAN=1 CFLAGS="-O1 -g" all' \
	  tests/run build build-asan

# One pass, normal build only (for quick iteration).
check-fast: all
	tests/deps
	tests/run build

bench: all
	bench/run $(BUILD)

# The BPF program is C for another target: cppcheck is told its macros.
lint: $(GUARD_SKEL) $(GUARD_NF_SKEL)
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr -D_GNU_SOURCE -Iinclude -Isrc -isrc/bpf/guard.bpf.c \
	  -isrc/bpf/guard_nf.bpf.c src
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr -D__bpf__ '-DSEC(x)=' -D__always_inline=inline -D__ksym= \
	  -Isrc src/bpf/guard.bpf.c src/bpf/guard_nf.bpf.c
	clang-tidy --quiet $(CORE_SRC) $(LIB_SRC) $(DAEMON_SRC) $(PING_SRC) $(CTL_SRC) $(RUN_SRC) $(SHIM_SRC) \
	  -- $(ALLCPPFLAGS) -I$(BUILD)/bpf -std=gnu11

# libFuzzer targets for the decoders, the engine and the daemon's dispatch
# (clang, ASan+UBSan): `make fuzz` builds them and runs each for FUZZ_RUNS
# inputs from its seed corpus (tests/fuzz/corpus/NAME; new inputs go to a
# scratch directory).  The suite (tests/integration/fuzz.sh) does the same.
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,build/fuzz/%,$(FUZZ_SRC)) \
	     build/fuzz/fuzz_dispatch_thread
FUZZ_RUNS ?= 200000
fuzz: fuzz-build
	tests/fuzz/run $(FUZZ_RUNS) $(FUZZ_BINS)
fuzz-build: $(FUZZ_BINS)
# A target that also exercises library code names those (pure) sources
# in FUZZ_LIB_<target>.
FUZZ_LIB_fuzz_libdecode := src/lib/cmsg.c src/lib/ucopy.c
build/fuzz/fuzz_libdecode: $(FUZZ_LIB_fuzz_libdecode)
build/fuzz/%: tests/fuzz/%.c $(CORE_SRC)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined $(ALLCPPFLAGS) \
	  -o $@ $< $(CORE_SRC) $(FUZZ_LIB_$*)
# fuzz_dispatch: the daemon's event loop and dispatch in process
# (its modules built with -DPSD_FUZZ) around fakes of the host
# (tests/fuzz/fake_host.c), its clock, closer_stop() and the allocation of
# the engine's identifier tables wrapped.  fuzz_dispatch_thread is the
# same program, run with the daemon's closing thread (as without
# SO_PASSRIGHTS): its name says so.  The daemon's teardown walks the
# 2 x 65536 identifier chains (pstab_free()): with ASan's read checks,
# UBSan's pointer checks and libFuzzer's comparison hooks that costs more
# than all the rest of an input, so psock.c keeps ASan's write checks, the
# rest of UBSan and coverage only here (fuzz_wire checks it fully).
FUZZ_DISPATCH_SRC := tests/fuzz/fuzz_dispatch.c tests/fuzz/dispatch_net.c \
	tests/fuzz/fake_host.c tests/fuzz/fake_guard.c \
	$(addprefix src/daemon/,server.c loop.c \
	client.c ops.c ssock.c bsock.c bscan.c deliver.c audit.c closer.c log.c \
	share.c arena.c sstate.c notify.c) \
	$(CORE_SRC)
FUZZ_DISPATCH_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(FUZZ_DISPATCH_SRC))
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter \
	$(ALLCPPFLAGS) -DPSD_FUZZ -fsanitize=address,undefined
FUZZ_LIGHT := -fno-sanitize=alignment,null,pointer-overflow \
	-mllvm -asan-instrument-reads=0 \
	-fsanitize-coverage=inline-8bit-counters,pc-table
FUZZ_WRAP := clock_gettime time closer_stop calloc free
comma := ,
build/fuzz/obj/%.o: %.c $(wildcard tests/fuzz/*.h src/*/*.h) Makefile
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $(if $(filter src/engine/psock.c,$<),$(FUZZ_LIGHT),\
	  -fsanitize=fuzzer-no-link) -c -o $@ $<
build/fuzz/fuzz_dispatch: $(FUZZ_DISPATCH_OBJ)
	clang -fsanitize=fuzzer,address,undefined \
	  $(patsubst %,-Wl$(comma)--wrap=%,$(FUZZ_WRAP)) -o $@ $^ -lpthread
build/fuzz/fuzz_dispatch_thread: build/fuzz/fuzz_dispatch
	ln -f $< $@

# --- make install, make uninstall ---
#
# Everything lands under the directory variables above (and DESTDIR);
# nothing under another package's name: ping is installed as
# pingsock-ping (pingsock-ping-divert makes it the host's ping, on
# request), the shim in PKGLIBDIR.  Files made by other parts of the tree
# are installed when they are there: etc/pingsockd.conf (never over an
# existing one), etc/pingsockd.logrotate, completion/*.
# make install notes each directory it creates in $(PKGLIBDIR)/installed-dirs
# and make uninstall removes those (when empty) and nothing else.
CONF_SRC_F   := $(wildcard etc/pingsockd.conf)
LOGROT_SRC_F := $(wildcard etc/pingsockd.logrotate)
COMPL_SRC_F  := $(wildcard completion/*)
INST_DIRS = $(BINDIR) $(SBINDIR) $(LIBDIR) $(PKGLIBDIR) $(PKGCONFIGDIR) \
	$(INCLUDEDIR) $(MANDIR)/man1 $(MANDIR)/man3 $(MANDIR)/man8 \
	$(SYSTEMDUNITDIR) $(SYSUSERSDIR) $(TMPFILESDIR) \
	$(if $(CONF_SRC_F),$(SYSCONFDIR)/pingsock) \
	$(if $(LOGROT_SRC_F),$(SYSCONFDIR)/logrotate.d) \
	$(if $(COMPL_SRC_F),$(BASHCOMPDIR))
DIRLOG = $(DESTDIR)$(PKGLIBDIR)/installed-dirs
LIBSO_REAL := libpingsock.so.$(VERSION)
LIBSO_SONAME := libpingsock.so.$(SOVERSION)

# Files of pingsock before 0.1.0 that this layout has no more: its ping as
# BINDIR/ping (before /usr/bin in PATH, it shadows iputils' ping) and
# ping.8, the shim in LIBDIR.  Removed when they are pingsock's, unless a
# package owns the path (make install PREFIX=/usr wrote over iputils' ping:
# reinstalling iputils-ping is then the way back).
STALE_CLEAN = for f in $(BINDIR)/ping $(MANDIR)/man8/ping.8; do p=$(DESTDIR)$$f; \
	  [ -f "$$p" ] && grep -q pingsock "$$p" 2>/dev/null || continue; \
	  if [ -z "$(DESTDIR)" ] && command -v dpkg-query >/dev/null && \
	    { dpkg-query -S "$$f" || dpkg-query -S "$${f\#/usr}"; } >/dev/null 2>&1; then \
	    echo "note: $$f is an older pingsock's, over a package's file:" \
	      "apt-get install --reinstall the package (iputils-ping)"; \
	  else echo "rm -f $$p (an older pingsock's)"; rm -f "$$p"; fi; \
	done; \
	if [ -f $(DESTDIR)$(LIBDIR)/libpingsock-preload.so ]; then \
	  echo "rm -f $(DESTDIR)$(LIBDIR)/libpingsock-preload.so (now in $(PKGLIBDIR))"; \
	  rm -f $(DESTDIR)$(LIBDIR)/libpingsock-preload.so; fi

install: programs
	@$(STALE_CLEAN)
	@made=; for d in $(INST_DIRS); do \
	  p=$$d; while [ -n "$$p" ] && [ "$$p" != / ] && [ ! -d "$(DESTDIR)$$p" ]; do \
	    made="$$made $$p"; p=$$(dirname "$$p"); done; \
	done; \
	$(INSTALL) -d $(addprefix $(DESTDIR),$(INST_DIRS)) && \
	for p in $$made; do echo "$$p"; done >>$(DIRLOG).new && \
	{ cat $(DIRLOG) 2>/dev/null; cat $(DIRLOG).new; } | sort -u >$(DIRLOG).tmp && \
	rm -f $(DIRLOG).new && mv $(DIRLOG).tmp $(DIRLOG) && chmod 0644 $(DIRLOG)
	$(INSTALL) -m 0755 $(PING_DYN) $(CTL) $(RUN) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 0755 $(DAEMON) $(DESTDIR)$(SBINDIR)/
	$(SUBST) src/divert/pingsock-ping-divert.in >$(DESTDIR)$(SBINDIR)/pingsock-ping-divert
	chmod 0755 $(DESTDIR)$(SBINDIR)/pingsock-ping-divert
	$(INSTALL) -m 0644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libpingsock.a
	$(INSTALL) -m 0644 $(LIB_SO) $(DESTDIR)$(LIBDIR)/$(LIBSO_REAL)
	ln -sf $(LIBSO_REAL) $(DESTDIR)$(LIBDIR)/$(LIBSO_SONAME)
	ln -sf $(LIBSO_SONAME) $(DESTDIR)$(LIBDIR)/libpingsock.so
	[ -z "$(SHIM_SO)" ] || $(INSTALL) -m 0644 $(SHIM_SO) $(DESTDIR)$(PKGLIBDIR)/
	$(INSTALL) -m 0644 include/pingsock.h $(DESTDIR)$(INCLUDEDIR)/
	$(SUBST) pingsock.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/pingsock.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/pingsock.pc
	for m in man/*.[138]; do [ -e "$$m" ] || continue; \
	  s=$${m##*.}; $(SUBST) $$m >$(DESTDIR)$(MANDIR)/man$$s/$${m#man/} && \
	  chmod 0644 $(DESTDIR)$(MANDIR)/man$$s/$${m#man/} || exit 1; done
	ln -sf pingsock-ping.8 $(DESTDIR)$(MANDIR)/man8/pingsock-ping-divert.8
	for u in $(UNIT_IN); do n=$${u#systemd/}; n=$${n%.in}; \
	  $(SUBST) $$u >$(DESTDIR)$(SYSTEMDUNITDIR)/$$n && \
	  chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$n || exit 1; done
	for u in $(UNIT_PLAIN); do \
	  $(INSTALL) -m 0644 $$u $(DESTDIR)$(SYSTEMDUNITDIR)/ || exit 1; done
	$(SUBST) systemd/pingsockd.sysusers.in >$(DESTDIR)$(SYSUSERSDIR)/pingsockd.conf
	$(SUBST) systemd/pingsockd.tmpfiles.in >$(DESTDIR)$(TMPFILESDIR)/pingsockd.conf
	chmod 0644 $(DESTDIR)$(SYSUSERSDIR)/pingsockd.conf $(DESTDIR)$(TMPFILESDIR)/pingsockd.conf
	@for f in $(CONF_SRC_F); do t=$(DESTDIR)$(SYSCONFDIR)/pingsock/pingsockd.conf; \
	  if [ -e "$$t" ]; then echo "note: $$t exists: kept (the shipped one is $$f)"; \
	  else echo "$(INSTALL) -m 0644 $$f $$t"; $(INSTALL) -m 0644 $$f "$$t" || exit 1; fi; done
	for f in $(LOGROT_SRC_F); do \
	  $(INSTALL) -m 0644 $$f $(DESTDIR)$(SYSCONFDIR)/logrotate.d/pingsockd || exit 1; done
	for f in $(COMPL_SRC_F); do \
	  $(INSTALL) -m 0644 $$f $(DESTDIR)$(BASHCOMPDIR)/ || exit 1; done
	@if [ -n "$(DESTDIR)" ] || [ "$$(id -u)" != 0 ]; then :; \
	elif command -v $(LDCONFIG) >/dev/null; then echo "$(LDCONFIG)"; $(LDCONFIG); fi
	@if getent passwd $(DAEMON_USER) >/dev/null; then :; \
	elif [ "$(CREATE_USER)" = auto ] && [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
	  if command -v systemd-sysusers >/dev/null; then \
	    echo "systemd-sysusers $(SYSUSERSDIR)/pingsockd.conf"; \
	    systemd-sysusers $(SYSUSERSDIR)/pingsockd.conf; \
	  else \
	    echo "useradd --system $(DAEMON_USER)"; \
	    useradd --system --user-group --no-create-home --home-dir /nonexistent \
	      --shell /usr/sbin/nologin $(DAEMON_USER); \
	  fi; \
	else \
	  echo "note: no user $(DAEMON_USER); pingsockd.service needs one:" \
	    "systemd-sysusers $(SYSUSERSDIR)/pingsockd.conf (or useradd --system" \
	    "--user-group --no-create-home --shell /usr/sbin/nologin $(DAEMON_USER))"; \
	fi

# The configuration file goes only if it is still the one shipped.  If
# pingsock-ping-divert made pingsock-ping the host's ping, that is undone
# first (as the package's prerm does).
uninstall:
	@$(STALE_CLEAN)
	@d=$(SBINDIR)/pingsock-ping-divert; \
	if [ -z "$(DESTDIR)" ] && [ -x "$$d" ] && "$$d" --status >/dev/null 2>&1; then \
	  echo "$$d --undo"; "$$d" --undo; fi
	rm -f $(DESTDIR)$(BINDIR)/pingsock-ping $(DESTDIR)$(BINDIR)/pingsockctl \
	  $(DESTDIR)$(BINDIR)/pingsock-run \
	  $(DESTDIR)$(SBINDIR)/pingsockd $(DESTDIR)$(SBINDIR)/pingsock-ping-divert \
	  $(DESTDIR)$(LIBDIR)/libpingsock.a $(DESTDIR)$(LIBDIR)/libpingsock.so \
	  $(DESTDIR)$(LIBDIR)/$(LIBSO_SONAME) $(DESTDIR)$(LIBDIR)/$(LIBSO_REAL) \
	  $(DESTDIR)$(PKGLIBDIR)/libpingsock-preload.so \
	  $(DESTDIR)$(INCLUDEDIR)/pingsock.h \
	  $(DESTDIR)$(PKGCONFIGDIR)/pingsock.pc \
	  $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(UNIT_NAMES)) \
	  $(DESTDIR)$(SYSUSERSDIR)/pingsockd.conf \
	  $(DESTDIR)$(TMPFILESDIR)/pingsockd.conf \
	  $(DESTDIR)$(SYSCONFDIR)/logrotate.d/pingsockd
	for m in man/*.[138]; do rm -f $(DESTDIR)$(MANDIR)/man$${m##*.}/$${m#man/}; done
	rm -f $(DESTDIR)$(MANDIR)/man8/pingsock-ping-divert.8
	for f in $(COMPL_SRC_F); do rm -f $(DESTDIR)$(BASHCOMPDIR)/$${f#completion/}; done
	@t=$(DESTDIR)$(SYSCONFDIR)/pingsock/pingsockd.conf; \
	if [ -e "$$t" ] && [ -n "$(CONF_SRC_F)" ] && cmp -s "$$t" $(CONF_SRC_F); then \
	  echo "rm -f $$t"; rm -f "$$t"; \
	elif [ -e "$$t" ]; then echo "note: $$t was changed: kept"; fi
	@rmdir --ignore-fail-on-non-empty $(DESTDIR)$(SYSCONFDIR)/pingsock 2>/dev/null || true
	@if [ -f $(DIRLOG) ]; then \
	  dirs=$$(sort -r $(DIRLOG)); rm -f $(DIRLOG); \
	  for d in $$dirs; do rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$d" 2>/dev/null; done; \
	fi; true
	@rmdir --ignore-fail-on-non-empty $(DESTDIR)$(PKGLIBDIR) 2>/dev/null || true
	@! getent passwd $(DAEMON_USER) >/dev/null || [ -n "$(DESTDIR)" ] || \
	  echo "note: the user $(DAEMON_USER) is kept (userdel $(DAEMON_USER) removes it)"

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
