# SPDX-License-Identifier: ISC
# pingsock - build, test, install.
#
#   make                 build everything into build/
#   make check           unit, integration and conformance tests, then the
#                        same suite again built with ASan+UBSan (build-asan/);
#                        as root it first installs what the tests need
#                        (tests/deps: .ci/test-packages)
#   make bench           pingsock against the kernel's own ping socket
#   make install PREFIX=/usr/local DESTDIR=
#                        also the systemd units (SYSTEMDUNITDIR) and, run as
#                        root without DESTDIR, the system user DAEMON_USER
#
# Sources are found by directory, so a new file needs no Makefile change:
#   src/engine, src/wire  pure code (libpscore.a), no I/O
#   src/lib               libpingsock (+ core)
#   src/daemon            pingsockd
#   src/ping              ping
#   src/ctl               pingsockctl (+ libpingsock's request client)
#   tests/unit/test_*.c   one binary each, linked with the core
#   tests/lib/*.c         test helper programs, linked with libpingsock.a
#   tests/conformance/*.c conformance case programs, linked with libpingsock.a
#   bench/*.c             benchmark programs, linked with libpingsock.a

PREFIX  ?= /usr/local
DESTDIR ?=
# systemd looks in /usr/local/lib/systemd/system and /usr/lib/systemd/system
# (and /etc/systemd/system): $(PREFIX)/lib/systemd/system suits both
# prefixes; another PREFIX needs SYSTEMDUNITDIR=/etc/systemd/system.
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# The unit's --user.  CREATE_USER=auto creates it (useradd --system) when
# make install runs as root without DESTDIR and it is missing; no: never.
DAEMON_USER ?= pingsock
CREATE_USER ?= auto
BUILD   ?= build
SAN     ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wstrict-prototypes \
           -Wmissing-prototypes -Wno-unused-parameter
VERSION := 0.1.0
CPPFLAGS += -D_GNU_SOURCE -Iinclude -Isrc -DPINGSOCK_VERSION=\"$(VERSION)\"
ALLCFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden \
           -MMD -MP
LDLIBS_D := -lcap -lseccomp

ifeq ($(SAN),1)
ALLCFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
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
LIB_A    := $(BUILD)/libpingsock.a
LIB_SO   := $(BUILD)/libpingsock.so
DAEMON   := $(BUILD)/pingsockd
PING     := $(BUILD)/ping
CTL      := $(BUILD)/pingsockctl
RUN      := $(BUILD)/pingsock-run
UNITS    := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRC))
TLIBS    := $(patsubst tests/lib/%.c,$(BUILD)/tests/lib/%,$(TLIB_SRC))
CONFS    := $(patsubst tests/conformance/%.c,$(BUILD)/tests/conformance/%,$(CONF_SRC))
CONFS   += $(patsubst tests/conformance/%.c,$(BUILD)/tests/conformance-plain/%,$(CONF_SRC))
BENCHES  := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))
PCFILE   := $(BUILD)/pingsock.pc
SDUNITS  := $(BUILD)/systemd/pingsockd.service $(BUILD)/systemd/pingsockd.socket

SHIM_SO  := $(if $(SHIM_SRC),$(BUILD)/libpingsock-preload.so)
PROGRAMS := $(DAEMON) $(PING) $(CTL) $(RUN)
ALL := $(CORE_A) $(LIB_A) $(LIB_SO) $(SHIM_SO) $(PROGRAMS) $(PCFILE) $(SDUNITS) \
       $(UNITS) $(TLIBS) $(CONFS) $(BENCHES)

.PHONY: all check check-fast bench install uninstall clean lint fuzz fuzz-build
all: $(ALL)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALLCFLAGS) -c -o $@ $<

$(CORE_A): $(call obj,$(CORE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LIB_A): $(call obj,$(LIB_SRC) $(CORE_SRC))
	rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(call obj,$(LIB_SRC) $(CORE_SRC)) src/lib/libpingsock.map
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=src/lib/libpingsock.map \
	  -Wl,-soname,libpingsock.so.0 -o $@ $(call obj,$(LIB_SRC) $(CORE_SRC))

# The LD_PRELOAD shim: the library plus the interposed libc calls; it
# exports those calls (its own version script) and nothing of the API.
$(BUILD)/libpingsock-preload.so: $(call obj,$(SHIM_SRC) $(LIB_SRC) $(CORE_SRC)) src/shim/shim.map
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=src/shim/shim.map \
	  -o $@ $(call obj,$(SHIM_SRC) $(LIB_SRC) $(CORE_SRC)) -ldl -lpthread

$(DAEMON): $(call obj,$(DAEMON_SRC)) $(CORE_A)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_D)

$(PING): $(call obj,$(PING_SRC)) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

$(RUN): $(call obj,$(RUN_SRC)) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^ -lseccomp -lpthread

# A statically linked program making raw system calls, for
# tests/integration/run.sh: never with the sanitizers (no static ASan).
STATIC_T := $(BUILD)/tests/static/rawsys
all: $(STATIC_T)
$(STATIC_T): tests/static/rawsys.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -std=gnu11 $(WARN) -O2 -static -o $@ $<

# The daemon again with the sandbox's test trigger (-DPSD_TESTING: SIGUSR1
# or SIGUSR2 make it try a forbidden system call), for
# tests/integration/sandbox.sh only; never installed.
SBTEST := $(BUILD)/tests/lib/pingsockd-sandboxtest
all: $(SBTEST)
$(BUILD)/obj/testing/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DPSD_TESTING $(ALLCFLAGS) -c -o $@ $<
$(SBTEST): $(patsubst %.c,$(BUILD)/obj/testing/%.o,$(DAEMON_SRC)) $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS_D)

# pingsockctl calls through the library's request client (lib/call.h):
# from the static library, only that and what it needs is linked in.
$(CTL): $(call obj,$(CTL_SRC)) $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $^

$(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(call obj,$(UNITLIB_SRC)) $(CORE_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^

# The daemon's event loop and users' shares are tested on their own.
$(BUILD)/tests/unit/test_loop: $(call obj,src/daemon/loop.c src/daemon/share.c)

$(BUILD)/tests/lib/%: $(BUILD)/obj/tests/lib/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

$(BUILD)/tests/conformance/%: $(BUILD)/obj/tests/conformance/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# The same cases as plain libc programs (-DCONF_PLAIN, plain.h), without
# libpingsock: run.sh runs them under the shim (CONF_SHIM=1).
$(BUILD)/obj/tests/conformance-plain/%.o: tests/conformance/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DCONF_PLAIN $(ALLCFLAGS) -c -o $@ $<

$(BUILD)/tests/conformance-plain/%: $(BUILD)/obj/tests/conformance-plain/%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

# A plain libc program (no libpingsock) for tests/integration/shim_prog.sh.
SHIMPROG := $(BUILD)/tests/shimprog/shimprog
all: $(SHIMPROG)
$(SHIMPROG): $(BUILD)/obj/tests/shimprog/shimprog.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ -lm

$(PCFILE): pingsock.pc.in
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $< > $@

# The systemd units for this PREFIX (make install writes them again for its
# own PREFIX, as it does the .pc file).
UNIT_SED = sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@DAEMON_USER@|$(DAEMON_USER)|g'
$(BUILD)/systemd/pingsockd.service: systemd/pingsockd.service.in
	@mkdir -p $(dir $@)
	$(UNIT_SED) $< > $@
$(BUILD)/systemd/pingsockd.socket: systemd/pingsockd.socket
	@mkdir -p $(dir $@)
	cp $< $@

# The whole suite, then again under ASan+UBSan.  tests/run prints the
# closing "N passed, N failed" line over both passes.
check: all
	tests/deps
	$(MAKE) --no-print-directory BUILD=build-asan SAN=1 CFLAGS="-O1 -g" all
	tests/run build build-asan

# One pass, normal build only (for quick iteration).
check-fast: all
	tests/deps
	tests/run build

bench: all
	bench/run $(BUILD)

lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
	  --inline-suppr -D_GNU_SOURCE -Iinclude -Isrc src
	clang-tidy --quiet $(CORE_SRC) $(LIB_SRC) $(DAEMON_SRC) $(PING_SRC) $(CTL_SRC) $(RUN_SRC) $(SHIM_SRC) \
	  -- $(CPPFLAGS) -std=gnu11

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
FUZZ_LIB_fuzz_libdecode := src/lib/cmsg.c
build/fuzz/fuzz_libdecode: $(FUZZ_LIB_fuzz_libdecode)
build/fuzz/%: tests/fuzz/%.c $(CORE_SRC)
	@mkdir -p $(dir $@)
	clang -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined $(CPPFLAGS) \
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
	tests/fuzz/fake_host.c $(addprefix src/daemon/,server.c loop.c \
	client.c ops.c ssock.c bsock.c deliver.c audit.c closer.c log.c \
	share.c arena.c sstate.c) \
	$(CORE_SRC)
FUZZ_DISPATCH_OBJ := $(patsubst %.c,build/fuzz/obj/%.o,$(FUZZ_DISPATCH_SRC))
FUZZ_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter \
	$(CPPFLAGS) -DPSD_FUZZ -fsanitize=address,undefined
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

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/sbin \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/share/man/man8 $(DESTDIR)$(PREFIX)/share/man/man3 \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(PING) $(CTL) $(RUN) $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(DAEMON) $(DESTDIR)$(PREFIX)/sbin/
	install -m 0644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 0755 $(LIB_SO) $(DESTDIR)$(PREFIX)/lib/libpingsock.so.0
	[ -z "$(SHIM_SO)" ] || install -m 0755 $(SHIM_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libpingsock.so.0 $(DESTDIR)$(PREFIX)/lib/libpingsock.so
	install -m 0644 include/pingsock.h $(DESTDIR)$(PREFIX)/include/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  pingsock.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/pingsock.pc
	chmod 0644 $(DESTDIR)$(PREFIX)/lib/pkgconfig/pingsock.pc
	for m in man/*.8; do install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man8/; done
	for m in man/*.3; do [ -e "$$m" ] || continue; \
	  install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man3/; done
	for m in man/*.1; do install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	$(UNIT_SED) systemd/pingsockd.service.in > $(DESTDIR)$(SYSTEMDUNITDIR)/pingsockd.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/pingsockd.service
	install -m 0644 systemd/pingsockd.socket $(DESTDIR)$(SYSTEMDUNITDIR)/
	@if getent passwd $(DAEMON_USER) >/dev/null; then :; \
	elif [ "$(CREATE_USER)" = auto ] && [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then \
	  echo "useradd --system $(DAEMON_USER)"; \
	  useradd --system --no-create-home --home-dir /nonexistent \
	    --shell /usr/sbin/nologin $(DAEMON_USER); \
	else \
	  echo "note: no user $(DAEMON_USER); pingsockd.service needs one:" \
	    "useradd --system --no-create-home --shell /usr/sbin/nologin $(DAEMON_USER)"; \
	fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ping $(DESTDIR)$(PREFIX)/bin/pingsockctl \
	  $(DESTDIR)$(PREFIX)/bin/pingsock-run \
	  $(DESTDIR)$(PREFIX)/sbin/pingsockd $(DESTDIR)$(PREFIX)/lib/libpingsock.* \
	  $(DESTDIR)$(PREFIX)/lib/libpingsock-preload.so \
	  $(DESTDIR)$(PREFIX)/include/pingsock.h \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/pingsock.pc
	for m in man/*.8; do rm -f $(DESTDIR)$(PREFIX)/share/man/man8/$${m#man/}; done
	for m in man/*.3; do rm -f $(DESTDIR)$(PREFIX)/share/man/man3/$${m#man/}; done
	for m in man/*.1; do rm -f $(DESTDIR)$(PREFIX)/share/man/man1/$${m#man/}; done
	rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/pingsockd.service \
	  $(DESTDIR)$(SYSTEMDUNITDIR)/pingsockd.socket
	@! getent passwd $(DAEMON_USER) >/dev/null || [ -n "$(DESTDIR)" ] || \
	  echo "note: the user $(DAEMON_USER) is kept (userdel $(DAEMON_USER) removes it)"

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
