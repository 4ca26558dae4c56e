# taintguard — top-level, non-recursive build.
#   make                 build library, CLI, rpm plugin, DKMS hook
#   make check           run every test (unit, modules, rpm, dkms, kernel under QEMU)
#   make check-fast      the everyday tier: no root, no network, no VM
#   make check SANITIZE=1   only the suites that run under ASan+UBSan (build-san/)
#                        and ThreadSanitizer (build-tsan/); make check runs them too
#   make install DESTDIR=... PREFIX=/usr
#   make deps            install Debian build/test dependencies (root)

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
LIBEXECDIR ?= $(PREFIX)/libexec
INCLUDEDIR ?= $(PREFIX)/include
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
SYSCONFDIR ?= /etc
DESTDIR    ?=

CC      ?= cc
PKG_CONFIG ?= pkg-config
SANITIZE ?=
ifeq ($(SANITIZE),1)
B       ?= build-san
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else ifeq ($(SANITIZE),fuzz)
# libFuzzer build (make fuzz): clang, everything instrumented for coverage
B       ?= build-fuzz
CC      := clang
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
B       ?= build
SANFLAGS =
endif

WARN    = -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2 -Wmissing-prototypes
CFLAGS ?= -O2 -g
CPPFLAGS += -D_GNU_SOURCE -Ilib -Iutil -DTG_DATADIR='"$(DATADIR)/taintguard"' -DTG_SYSCONFDIR='"$(SYSCONFDIR)/taintguard"' -DTG_LOCALSTATEDIR='"/var/lib/taintguard"' -DTG_LIBEXECDIR='"$(LIBEXECDIR)/taintguard"' -DTG_BINDIR='"$(BINDIR)"'
ALLCFLAGS = -std=gnu11 -fPIC $(WARN) $(CFLAGS) $(SANFLAGS)

LIB_PKGS = libelf yaml-0.1 liblzma libzstd zlib libcrypto json-c liblz4 libseccomp hogweed nettle gmp
LIB_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(LIB_PKGS))
LIB_LIBS   := $(shell $(PKG_CONFIG) --libs $(LIB_PKGS)) -lpthread
RPM_CFLAGS := $(shell $(PKG_CONFIG) --cflags rpm 2>/dev/null)
RPM_LIBS   := $(shell $(PKG_CONFIG) --libs rpm 2>/dev/null)
RPM_VERSION := $(shell $(PKG_CONFIG) --modversion rpm 2>/dev/null)
# 4.18.0 -> 41800: the rpm plugin picks its hook ABI from it (rpm-plugin/plugin_abi.h)
RPM_VERSION_NUM := $(shell echo '$(RPM_VERSION)' | awk -F. '{ printf "%d", $$1 * 10000 + $$2 * 100 + $$3 }')
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# Repository metadata and downloads (pkg/repo.c, pkg/fetch.c): createrepo_c's
# parsers and librepo.  Only taintguard-audit and the repodata fuzz harness
# link them (the rpm plugin takes nothing of that from libtgpkg.a).  On
# Debian 12 createrepo_c's headers come from CREATEREPO_C_DIR (.ci/deps.sh
# says why); where its -dev package installs, pkg-config finds it.
CREATEREPO_C_DIR ?= /opt/taintguard-build/createrepo_c
ifeq ($(shell $(PKG_CONFIG) --exists createrepo_c 2>/dev/null && echo y),y)
CRC_CFLAGS := $(shell $(PKG_CONFIG) --cflags createrepo_c)
CRC_LIBS   := -lcreaterepo_c
else
CRC_CFLAGS := -I$(CREATEREPO_C_DIR)/include
CRC_LIBS   := -l:libcreaterepo_c.so.0
endif
REPO_CFLAGS := $(shell $(PKG_CONFIG) --cflags librepo glib-2.0 2>/dev/null) $(CRC_CFLAGS)
REPO_LIBS   := $(shell $(PKG_CONFIG) --libs librepo glib-2.0 2>/dev/null) $(CRC_LIBS)
# What the package reader is: cached facts of packages (pkg/cache.c) are only
# believed when written by the same reader code (sources hashed).
READER_SRC = $(sort $(wildcard lib/module*.c lib/elf_access.c lib/signature.c lib/decompress.c lib/strpool.c lib/kernel_places.c \
	pkg/classify.c pkg/ftype.c pkg/module.c pkg/files.c pkg/payload.c pkg/decode.c pkg/rpm.c pkg/repo.c)) lib/taintguard.h
READER_ID := $(shell cat $(READER_SRC) 2>/dev/null | sha256sum | cut -c1-16)
# What the image reader is: an image cache entry (lib/image_cache.c) is only
# believed when written by the same code that decodes and searches images.
IMAGE_READER_SRC = $(sort $(wildcard lib/kimage*.c lib/kimage.h lib/decompress.c lib/loader_scan.c \
	lib/loader_facts.h lib/keyring.h lib/image_cache.c lib/image_memo.c))
IMAGE_READER_ID := $(shell cat $(IMAGE_READER_SRC) 2>/dev/null | sha256sum | cut -c1-16)

LIB_SRC  = $(sort $(wildcard lib/*.c))
LIB_OBJ  = $(LIB_SRC:%.c=$(B)/%.o)
# util/: the small tools every directory shares (string vector, byte buffer,
# formatted strings, hex, install paths); no project logic, no librpm or libelf.
# A private static library, hidden: part of libtaintguard, exported by nothing.
UTIL_SRC = $(sort $(wildcard util/*.c))
UTIL_OBJ = $(UTIL_SRC:%.c=$(B)/%.o)
# pkg/: reading rpm packages (librpm), a private static library of the front ends
# repository metadata and downloads (createrepo_c, librepo): only taintguard-audit links them,
# so the rpm plugin builds where those libraries are not installed
PKG_REPO_SRC = pkg/repo.c pkg/fetch.c
PKG_SRC  = $(filter-out $(PKG_REPO_SRC),$(sort $(wildcard pkg/*.c)))
PKG_OBJ  = $(PKG_SRC:%.c=$(B)/%.o)
PKG_REPO_OBJ = $(PKG_REPO_SRC:%.c=$(B)/%.o)
# guard/: the files that decide whether taintguard runs (rpm macro files, dkms
# framework files ...), read as rpm and dkms read them; no librpm, private, static
GUARD_SRC = $(sort $(wildcard guard/*.c))
GUARD_OBJ = $(GUARD_SRC:%.c=$(B)/%.o)
# cli/: `taintguard` (no librpm) and `taintguard-audit` (the audit command, with pkg/)
AUDIT_SRC = cli/cmd_audit.c $(sort $(wildcard cli/audit_*.c))
CLI_SRC  = $(filter-out $(AUDIT_SRC),$(sort $(wildcard cli/*.c)))
CLI_OBJ  = $(CLI_SRC:%.c=$(B)/%.o)
AUDIT_OBJ = $(AUDIT_SRC:%.c=$(B)/%.o) $(B)/cli/common.o
PLUGIN_SRC = $(sort $(wildcard rpm-plugin/*.c))
PLUGIN_OBJ = $(PLUGIN_SRC:%.c=$(B)/%.o)
HOOK_SRC = $(sort $(wildcard hooks/*.c))
HOOK_OBJ = $(HOOK_SRC:%.c=$(B)/%.o)
UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))
# tests/unit/test_pkg_*.c test pkg/: only where librpm is
ifeq ($(RPM_VERSION),)
UNIT_SRC := $(filter-out tests/unit/test_pkg_%.c,$(UNIT_SRC))
endif
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(B)/tests/%)
# fuzz harnesses: libFuzzer binaries (make fuzz) and plain replay drivers (make check)
FUZZ_NAMES = module decompress symvers policy package record kimage repodata facts guard
FUZZ_LIBS = $(B)/libtgpkg-repo.a $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS) $(RPM_LIBS) $(REPO_LIBS)
REPLAY_BIN = $(FUZZ_NAMES:%=$(B)/fuzz/replay_%)
FUZZ_SECONDS ?= 30

TARGETS = $(B)/libtaintguard.a $(B)/libtaintguard.so.0 $(B)/taintguard
ifneq ($(RPM_VERSION),)
TARGETS += $(B)/taintguard-audit $(B)/taintguard.so
endif
ifneq ($(HOOK_SRC),)
TARGETS += $(B)/taintguard-dkms
endif
# The dnf plugins (client-plugins/, taintguard-dnf(8)): dnf 4's is Python, made
# here only to name the installed taintguard command; dnf5's is built only
# where libdnf5's headers are.
TARGETS += $(B)/dnf4/taintguard.py $(B)/dnf4/taintguard.conf
HAVE_LIBDNF5 := $(shell $(PKG_CONFIG) --exists libdnf5 2>/dev/null && echo yes)
ifeq ($(HAVE_LIBDNF5),yes)
TARGETS += $(B)/dnf5/taintguard.so
endif

all: $(TARGETS)

# The installed paths are compiled in (default policy, /etc/taintguard):
# rebuild when PREFIX/DATADIR/SYSCONFDIR change between make and make install.
PATHS_STAMP = $(B)/paths.stamp
$(shell mkdir -p $(B); echo '$(DATADIR) $(SYSCONFDIR) $(LIBEXECDIR) $(BINDIR)' | cmp -s - $(PATHS_STAMP) || echo '$(DATADIR) $(SYSCONFDIR) $(LIBEXECDIR) $(BINDIR)' > $(PATHS_STAMP))
READER_STAMP = $(B)/reader.stamp
$(shell echo '$(READER_ID)' | cmp -s - $(READER_STAMP) || echo '$(READER_ID)' > $(READER_STAMP))
IMAGE_READER_STAMP = $(B)/image-reader.stamp
$(shell echo '$(IMAGE_READER_ID)' | cmp -s - $(IMAGE_READER_STAMP) || echo '$(IMAGE_READER_ID)' > $(IMAGE_READER_STAMP))

# Hidden by default: only what lib/taintguard.h declares is exported (see lib/libtaintguard.map).
$(B)/lib/%.o: lib/%.c $(wildcard lib/*.h util/*.h) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALLCFLAGS) -fvisibility=hidden $(LIB_CFLAGS) -c -o $@ $<

$(B)/util/%.o: util/%.c $(wildcard util/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALLCFLAGS) -fvisibility=hidden -c -o $@ $<

$(B)/guard/%.o: guard/%.c guard/guard.h $(wildcard util/*.h) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALLCFLAGS) -c -o $@ $<

$(B)/pkg/%.o: pkg/%.c lib/taintguard.h pkg/pkg.h pkg/owners.h guard/guard.h $(wildcard util/*.h) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ipkg -Iguard $(ALLCFLAGS) $(RPM_CFLAGS) $(REPO_CFLAGS) -c -o $@ $<

$(B)/lib/image_cache.o: $(IMAGE_READER_STAMP)
$(B)/lib/image_cache.o: CPPFLAGS += -DTG_IMAGE_READER_ID='"$(IMAGE_READER_ID)"'

$(B)/pkg/cache.o: $(READER_STAMP)
$(B)/pkg/cache.o: CPPFLAGS += -DTG_READER_ID='"$(READER_ID)"'

$(B)/cli/%.o: cli/%.c lib/taintguard.h pkg/pkg.h pkg/owners.h guard/guard.h $(wildcard cli/*.h util/*.h) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icli -Ipkg -Iguard $(ALLCFLAGS) $(RPM_CFLAGS) -c -o $@ $<

$(B)/rpm-plugin/%.o: rpm-plugin/%.c lib/taintguard.h pkg/pkg.h pkg/owners.h guard/guard.h $(wildcard rpm-plugin/*.h util/*.h) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Irpm-plugin -Ipkg -Iguard $(ALLCFLAGS) $(RPM_CFLAGS) -DTG_RPM_VERSION='"$(RPM_VERSION)"' -DTG_RPM_VERSION_NUM=$(RPM_VERSION_NUM) -c -o $@ $<

$(B)/hooks/%.o: hooks/%.c lib/taintguard.h guard/guard.h pkg/owners.h $(wildcard hooks/*.h util/*.h) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ihooks -Iguard -Ipkg $(ALLCFLAGS) -c -o $@ $<

$(B)/libtgutil.a: $(UTIL_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The project's own programs and tests link this archive: lib/ and util/ objects as built.
$(B)/libtaintguard.a: $(LIB_OBJ) $(UTIL_OBJ)
	@rm -f $@
	ar rcs $@ $^

# The installed archive: the same objects linked into one, every hidden symbol made
# local, so a program linking it statically sees only what lib/taintguard.h declares
# (util/'s strv_push or buf_put, and lib's internal tg_* helpers, would otherwise
# clash with the program's own names).
$(B)/dist/libtaintguard.a: $(LIB_OBJ) $(UTIL_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ $(B)/dist/libtaintguard.o
	$(LD) -r -o $(B)/dist/libtaintguard.o $^
	objcopy --localize-hidden $(B)/dist/libtaintguard.o
	ar rcs $@ $(B)/dist/libtaintguard.o

$(B)/libtaintguard.so.0: $(LIB_OBJ) $(B)/libtgutil.a lib/libtaintguard.map
	$(CC) -shared -Wl,-soname,libtaintguard.so.0 -Wl,--version-script,lib/libtaintguard.map \
		-Wl,--no-undefined $(SANFLAGS) $(LDFLAGS) -o $@ $(LIB_OBJ) $(B)/libtgutil.a $(LIB_LIBS)
	ln -sf libtaintguard.so.0 $(B)/libtaintguard.so

$(B)/libtgpkg.a: $(PKG_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/libtgpkg-repo.a: $(PKG_REPO_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(B)/libtgguard.a: $(GUARD_OBJ)
	@rm -f $@
	ar rcs $@ $^

# Front ends link the static library: the rpm plugin must not depend on an
# installed libtaintguard.so being found inside a chroot.  taintguard itself
# needs no librpm (check on a DKMS-only host); taintguard-audit does.
# pkg/owners.o (dpkg's database, DKMS's tree) needs no librpm: status names owners with it.
$(B)/taintguard: $(CLI_OBJ) $(B)/pkg/owners.o $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(B)/pkg/owners.o $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS)

$(B)/taintguard-audit: $(AUDIT_OBJ) $(B)/libtgpkg-repo.a $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(AUDIT_OBJ) $(B)/libtgpkg-repo.a $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS) $(RPM_LIBS) $(REPO_LIBS)

$(B)/taintguard.so: $(PLUGIN_OBJ) $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	$(CC) -shared $(SANFLAGS) $(LDFLAGS) -Wl,--exclude-libs,ALL -o $@ $(PLUGIN_OBJ) $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS) $(RPM_LIBS)

# the hook takes pkg/owners.o (no librpm): its walks judge each file once, by device and inode
$(B)/taintguard-dkms: $(HOOK_OBJ) $(B)/pkg/owners.o $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $(HOOK_OBJ) $(B)/pkg/owners.o $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS)

$(B)/tests/%: tests/unit/%.c $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iguard $(ALLCFLAGS) $(LIB_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS) $(CMOCKA_LIBS)

# The confinement's test (tests/unit/test_confine.c) links the module reader built with
# TG_TEST_HOOKS: a module carrying a marker makes the reader attempt a forbidden system
# call, crash or hang.  Only this test has it; the library and programs never do.
HOOKED_OBJ = $(B)/hooked/lib/module.o
$(B)/hooked/lib/%.o: lib/%.c $(wildcard lib/*.h util/*.h) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DTG_TEST_HOOKS $(ALLCFLAGS) -fvisibility=hidden $(LIB_CFLAGS) -c -o $@ $<

$(B)/tests/test_confine: tests/unit/test_confine.c $(HOOKED_OBJ) $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iguard $(ALLCFLAGS) $(LIB_CFLAGS) $(LDFLAGS) -o $@ $< $(HOOKED_OBJ) $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS) $(CMOCKA_LIBS)

# pkg/'s tests link libtgpkg.a and librpm (a more specific pattern than the one above)
$(B)/tests/test_pkg_%: tests/unit/test_pkg_%.c $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ipkg -Iguard $(ALLCFLAGS) $(RPM_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(LIB_LIBS) $(RPM_LIBS) $(CMOCKA_LIBS)

unit: $(UNIT_BIN) $(REPLAY_BIN) $(B)/tests/mutate $(B)/tests/guard-macrodefs

$(B)/tests/guard-macrodefs: tests/guard/macrodefs.c $(B)/libtgguard.a $(B)/libtgutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Iguard $(ALLCFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtgguard.a $(B)/libtgutil.a

$(B)/tests/mutate: tests/mutate/mutate.c $(B)/libtaintguard.a $(B)/libtgutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALLCFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS)

$(B)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(B)/libtgpkg-repo.a $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ipkg -Iguard $(ALLCFLAGS) $(RPM_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(FUZZ_LIBS)

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(B)/libtgpkg-repo.a $(B)/libtgpkg.a $(B)/libtgguard.a $(B)/libtaintguard.a $(B)/libtgutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ipkg -Iguard $(ALLCFLAGS) $(RPM_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS)

# make fuzz FUZZ_SECONDS=N: every libFuzzer harness for N seconds (clang)
fuzz:
	$(MAKE) SANITIZE=fuzz $(FUZZ_NAMES:%=build-fuzz/fuzz/fuzz_%)
	B=build-fuzz tests/fuzz/run.sh fuzz $(FUZZ_SECONDS)

check: all unit
ifeq ($(SANITIZE),1)
	tests/run-all.sh sanitize	# valgrind and rpm cannot host ASan binaries
else
	B=$(B) SANITIZE=$(SANITIZE) tests/run-all.sh
endif

check-unit: all unit
	B=$(B) tests/run-all.sh unit

# Everyday tier: no root, no network, no VM; a couple of minutes (README.md, Tests).
FAST_SUITES = hygiene structure unit modules fuzz-regress policy-sync library
check-fast: all unit
	B=$(B) tests/run-all.sh $(FAST_SUITES)

check-kernel: all
	B=$(B) tests/run-all.sh kernel

# Every kernel of the harness with every case (make check boots a subset on the
# slow guests: tests/run-all.sh subset()).  An hour or more on 2 cores.
KERNEL_SUITES = kernel kernel-6.12 kernel-7 kernel-arm64 kernel-s390x kernel-ppc64el kernel-5.10
check-kernel-all: all
	B=$(B) TG_KERNEL_ALL=1 tests/run-all.sh $(KERNEL_SUITES)

# rpm's own autotest suite (Debian 12's rpm, built from its source package in a
# chroot, cached under /var/tmp) without and with the rpm plugin: the same result
# for every test (tests/rpm-suite/run.sh).  Root, network the first time; on demand.
check-rpm-suite: all
	B=$(B) tests/rpm-suite/run.sh

deps:
	.ci/deps.sh

# Benchmarks (not tests: bench/README.md), one table at the end; root, minutes
# each.  A subset: make bench BENCHES="audit rpm".
BENCHES = audit rpm kernel-update repo tree
# bench/verify-speed: one signature verification as the library does it (bench/lib.sh)
$(B)/bench/verify-speed: bench/verify-speed.c $(B)/libtaintguard.a $(B)/libtgutil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(ALLCFLAGS) $(LIB_CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libtaintguard.a $(B)/libtgutil.a $(LIB_LIBS)

bench: all $(B)/bench/verify-speed
	B=$(B) bench/run.sh $(BENCHES)

# The built-in example: our own test modules, judged against the installed kernel.
# Quiet until the verdicts: both builds (taintguard, the test modules) write to
# EXAMPLE_LOG, whose end is shown when one fails.
EXAMPLE_MODULES = lve.ko notlve.ko ndiswrapper.ko propplain.ko gplok.ko gplimp.ko
EXAMPLE_LOG = tests/out/example-build.log
example:
	@mkdir -p $(dir $(EXAMPLE_LOG))
	@{ $(MAKE) all && tests/modules/build.sh tests/modules/out; } >$(EXAMPLE_LOG) 2>&1 || \
		{ tail -n 30 $(EXAMPLE_LOG); echo "make example: the build failed (all of it: $(EXAMPLE_LOG))"; exit 1; } >&2
	@cd tests/modules/out && ../../../$(B)/taintguard check --policy ../../../policy/default.yaml \
		propexp.ko $(EXAMPLE_MODULES); echo "(exit code $$?: 0 allow, 1 mark, 2 deny, 3 error)"

# rpm's own directories (rpm >= 4.20 also has pkg-config --variable=rpmplugindir rpm)
RPM_PLUGINDIR ?= $(shell rpm --eval '%{__plugindir}' 2>/dev/null)
RPM_MACRODIR  ?= $(shell rpm --eval '%{_rpmmacrodir}' 2>/dev/null)
BASHCOMPDIR   ?= $(DATADIR)/bash-completion/completions
PKGCONFIGDIR  ?= $(LIBDIR)/pkgconfig
# systemd reads units from /usr/lib/systemd/system and, for PREFIX=/usr/local, /usr/local/lib/systemd/system
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system

$(B)/taintguard-status.service: systemd/taintguard-status.service.in $(PATHS_STAMP)
	sed -e 's|@BINDIR@|$(BINDIR)|g' $< > $@

$(B)/dnf4/%: client-plugins/dnf4/% $(PATHS_STAMP)
	@mkdir -p $(@D)
	sed -e 's|@BINDIR@|$(BINDIR)|g' $< > $@

DNF5_CFLAGS = $(shell $(PKG_CONFIG) --cflags libdnf5 json-c 2>/dev/null)
DNF5_LIBS = $(shell $(PKG_CONFIG) --libs libdnf5 json-c rpm 2>/dev/null)
$(B)/dnf5/taintguard.so: client-plugins/dnf5/taintguard.cpp $(PATHS_STAMP)
	@mkdir -p $(@D)
	$(CXX) -std=c++20 -shared -fPIC -O2 -g -Wall -Wextra -DTG_BINDIR='"$(BINDIR)"' $(DNF5_CFLAGS) \
		-o $@ $< $(DNF5_LIBS)

# Where dnf 4 (python3-dnf) and dnf5 look for plugins and their configuration
DNF4_PLUGINDIR ?= $(shell /usr/bin/python3 -c 'import dnf.const; print(dnf.const.PLUGINPATH)' 2>/dev/null)
DNF4_CONFDIR   ?= $(SYSCONFDIR)/dnf/plugins
DNF5_PLUGINDIR ?= $(shell $(PKG_CONFIG) --variable=libdir libdnf5 2>/dev/null)/libdnf5/plugins
DNF5_CONFDIR   ?= $(SYSCONFDIR)/dnf/libdnf5-plugins

$(B)/taintguard.pc: taintguard.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|; s|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(shell sed -n 's/^\#define TG_VERSION_STRING "\(.*\)"/\1/p' lib/taintguard.h)|' $< > $@

# Everything; the DKMS integration through hooks/install.sh (it also diverts
# /usr/sbin/dkms when DESTDIR is empty, see taintguard-dkms(8)).
# The library alone: shared and static library, header, pkg-config file.
install-lib: $(B)/libtaintguard.so.0 $(B)/dist/libtaintguard.a $(B)/taintguard.pc
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 755 $(B)/libtaintguard.so.0 $(DESTDIR)$(LIBDIR)/libtaintguard.so.0
	ln -sf libtaintguard.so.0 $(DESTDIR)$(LIBDIR)/libtaintguard.so
	install -m 644 $(B)/dist/libtaintguard.a $(DESTDIR)$(LIBDIR)/libtaintguard.a
	install -m 644 lib/taintguard.h $(DESTDIR)$(INCLUDEDIR)/taintguard.h
	install -m 644 $(B)/taintguard.pc $(DESTDIR)$(PKGCONFIGDIR)/taintguard.pc

install: all install-lib $(B)/taintguard-status.service
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSTEMDUNITDIR) \
		$(DESTDIR)$(DATADIR)/taintguard $(DESTDIR)$(SYSCONFDIR)/taintguard $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(B)/taintguard $(DESTDIR)$(BINDIR)/taintguard
	if [ -f $(B)/taintguard-audit ]; then install -d $(DESTDIR)$(LIBEXECDIR)/taintguard && \
		install -m 755 $(B)/taintguard-audit $(DESTDIR)$(LIBEXECDIR)/taintguard/; fi
	install -m 644 policy/default.yaml $(DESTDIR)$(DATADIR)/taintguard/default.yaml
	# the admin's policy: created from the default once, never overwritten
	[ -e $(DESTDIR)$(SYSCONFDIR)/taintguard/policy.yaml ] || \
		install -m 644 policy/default.yaml $(DESTDIR)$(SYSCONFDIR)/taintguard/policy.yaml
	install -m 644 completion/taintguard.bash $(DESTDIR)$(BASHCOMPDIR)/taintguard
	install -m 644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 man/*.8 $(DESTDIR)$(MANDIR)/man8/
	# the daily "taintguard status" (installed, not enabled)
	install -m 644 $(B)/taintguard-status.service systemd/taintguard-status.timer $(DESTDIR)$(SYSTEMDUNITDIR)/
	if [ -f $(B)/taintguard.so ] && [ -n "$(RPM_PLUGINDIR)" ]; then \
		install -d $(DESTDIR)$(RPM_PLUGINDIR) $(DESTDIR)$(RPM_MACRODIR) && \
		install -m 755 $(B)/taintguard.so $(DESTDIR)$(RPM_PLUGINDIR)/taintguard.so && \
		install -m 644 rpm-plugin/macros.transaction_taintguard $(DESTDIR)$(RPM_MACRODIR)/; fi
	# the dnf plugins, where a dnf is there to load them
	if [ -n "$(DNF4_PLUGINDIR)" ]; then install -d $(DESTDIR)$(DNF4_PLUGINDIR) $(DESTDIR)$(DNF4_CONFDIR) && \
		install -m 644 $(B)/dnf4/taintguard.py $(DESTDIR)$(DNF4_PLUGINDIR)/taintguard.py && \
		install -m 644 $(B)/dnf4/taintguard.conf $(DESTDIR)$(DNF4_CONFDIR)/taintguard.conf; fi
	if [ -f $(B)/dnf5/taintguard.so ]; then install -d $(DESTDIR)$(DNF5_PLUGINDIR) $(DESTDIR)$(DNF5_CONFDIR) && \
		install -m 755 $(B)/dnf5/taintguard.so $(DESTDIR)$(DNF5_PLUGINDIR)/taintguard.so && \
		install -m 644 client-plugins/dnf5/taintguard.conf $(DESTDIR)$(DNF5_CONFDIR)/taintguard.conf; fi
	PREFIX=$(PREFIX) LIBEXECDIR=$(LIBEXECDIR) SYSCONFDIR=$(SYSCONFDIR) B=$(B) hooks/install.sh $(DESTDIR)
	# what is installed now is what the admin accepts (taintguard status compares with it);
	# a package (DESTDIR) leaves that to rpm -V and the admin
	[ -n "$(DESTDIR)" ] || $(BINDIR)/taintguard status --accept

# Removes what install laid down, except the admin's /etc/taintguard/policy.yaml.
uninstall:
	PREFIX=$(PREFIX) LIBEXECDIR=$(LIBEXECDIR) SYSCONFDIR=$(SYSCONFDIR) B=$(B) hooks/install.sh --uninstall $(DESTDIR)
	rm -f $(DESTDIR)$(LIBEXECDIR)/taintguard/taintguard-audit
	-rmdir $(DESTDIR)$(LIBEXECDIR)/taintguard 2>/dev/null
	rm -f $(DESTDIR)$(BINDIR)/taintguard $(DESTDIR)$(LIBDIR)/libtaintguard.so.0 \
		$(DESTDIR)$(LIBDIR)/libtaintguard.so $(DESTDIR)$(LIBDIR)/libtaintguard.a \
		$(DESTDIR)$(INCLUDEDIR)/taintguard.h $(DESTDIR)$(PKGCONFIGDIR)/taintguard.pc \
		$(DESTDIR)$(DATADIR)/taintguard/default.yaml $(DESTDIR)$(BASHCOMPDIR)/taintguard \
		$(DESTDIR)$(SYSTEMDUNITDIR)/taintguard-status.service \
		$(DESTDIR)$(SYSTEMDUNITDIR)/taintguard-status.timer \
		$(DESTDIR)/var/lib/taintguard/guard.conf \
		$(patsubst man/%,$(DESTDIR)$(MANDIR)/man1/%,$(wildcard man/*.1)) \
		$(patsubst man/%,$(DESTDIR)$(MANDIR)/man5/%,$(wildcard man/*.5)) \
		$(patsubst man/%,$(DESTDIR)$(MANDIR)/man8/%,$(wildcard man/*.8))
	[ -z "$(RPM_PLUGINDIR)" ] || rm -f $(DESTDIR)$(RPM_PLUGINDIR)/taintguard.so \
		$(DESTDIR)$(RPM_MACRODIR)/macros.transaction_taintguard
	[ -z "$(DNF4_PLUGINDIR)" ] || rm -f $(DESTDIR)$(DNF4_PLUGINDIR)/taintguard.py $(DESTDIR)$(DNF4_CONFDIR)/taintguard.conf
	rm -f $(DESTDIR)$(DNF5_PLUGINDIR)/taintguard.so $(DESTDIR)$(DNF5_CONFDIR)/taintguard.conf
	-rmdir $(DESTDIR)$(DATADIR)/taintguard 2>/dev/null
	# the image cache (made on first use): facts any run can read again from the images
	rm -rf $(DESTDIR)/var/cache/taintguard/images

# Source tarball of the tracked files (as in the working tree), for taintguard.spec.
VERSION = $(shell sed -n 's/^\#define TG_VERSION_STRING "\(.*\)"/\1/p' lib/taintguard.h)
dist:
	git ls-files | tar --transform 's|^|taintguard-$(VERSION)/|' -czf taintguard-$(VERSION).tar.gz -T -
	@echo taintguard-$(VERSION).tar.gz

clean:
	rm -rf build build-san build-fuzz build-tsan build-rpm-* tests/modules/out

.PHONY: dist fuzz all unit check check-unit check-fast check-kernel check-kernel-all check-rpm-suite bench deps clean install install-lib uninstall example
