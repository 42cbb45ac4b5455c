# SPDX-License-Identifier: GPL-2.0
# pagetrail: build the module (for the running kernel, KVER= or KDIR=), the
# test modules and programs, and run the demo, the tests and the benchmarks.

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
PROGS_OUT ?= $(TOP)/build/progs
CC_PROGS ?= gcc
PROG_CFLAGS := -O2 -g -Wall -Wextra -Werror -static -I$(TOP)/include -I$(TOP)/tests/nvsim

PROGS := cuinit memhog stopwatch ptbadin devcg_bpf uring_read ppdrive
PROG_BINS := $(addprefix $(PROGS_OUT)/,$(PROGS))

# The one version, dkms.conf's; pagetrail --version prints it.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(TOP)/dkms.conf)

# The pagetrail command: every tools/pagetrail/*.c, dynamically linked
# against Debian's libraries (json-c; the guest initramfs copies them).
TOOL_SRCS := $(wildcard $(TOP)/tools/pagetrail/*.c)
TOOL_HDRS := $(wildcard $(TOP)/tools/pagetrail/*.h)
TOOL_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -I$(TOP)/include -I$(TOP)/tools/pagetrail
TOOL_LIBS ?= $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
# --trace reads trace.dat through libtracecmd; without it the option says so.
ifeq ($(shell pkg-config --exists libtracecmd && echo y),y)
TOOL_CFLAGS += $(shell pkg-config --cflags libtracecmd)
TOOL_LIBS += $(shell pkg-config --libs libtracecmd)
else
TOOL_CFLAGS += -DPT_NO_TRACECMD
endif
TOOL_BIN := $(PROGS_OUT)/pagetrail

.PHONY: all modules tests progs clean check demo bench dkms-check dkms-install install help fuzz man

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(TOP) modules

tests: progs
	$(MAKE) -C $(KDIR) M=$(TOP) PAGETRAIL_TESTS=1 modules

progs: $(PROG_BINS) $(TOOL_BIN)

$(TOOL_BIN): $(TOOL_SRCS) $(TOOL_HDRS) include/uapi/pagetrail.h include/uapi/pagetrail_text.h dkms.conf
	@mkdir -p $(PROGS_OUT)
	$(CC_PROGS) $(TOOL_CFLAGS) -DPT_VERSION='"$(VERSION)"' $(shell pkg-config --cflags json-c 2>/dev/null) -o $@ $(TOOL_SRCS) $(TOOL_LIBS)

$(PROGS_OUT)/cuinit: tests/progs/cuinit.c tests/nvsim/nvsim_uapi.h
$(PROGS_OUT)/memhog: tests/progs/memhog.c tests/nvsim/nvsim_uapi.h
$(PROGS_OUT)/stopwatch: tests/progs/stopwatch.c
$(PROGS_OUT)/ptbadin: tests/progs/ptbadin.c
$(PROGS_OUT)/devcg_bpf: tests/progs/devcg_bpf.c
$(PROGS_OUT)/uring_read: tests/progs/uring_read.c
$(PROGS_OUT)/ppdrive: tests/progs/ppdrive.c
$(PROG_BINS):
	@mkdir -p $(PROGS_OUT)
	$(CC_PROGS) $(PROG_CFLAGS) -o $@ $(filter %.c,$^)

clean:
	$(MAKE) -C $(KDIR) M=$(TOP) PAGETRAIL_TESTS=1 clean || true
	rm -rf $(TOP)/build

# Every suite on every kernel; ends with "N passed, N failed".
check:
	$(TOP)/scripts/check

# The main job: the R1 failure chain, reproduced and explained in a VM.
demo:
	$(TOP)/scripts/demo

bench:
	$(TOP)/scripts/bench

# Every parser of the pagetrail command under libFuzzer + ASan + UBSan, long
# (make check runs the same harness for 10000 runs).
FUZZ_RUNS ?= 1000000
fuzz:
	PAGETRAIL_FUZZ_RUNS=$(FUZZ_RUNS) bash $(TOP)/tests/host/pagetrail_fuzz.sh

dkms-check:
	bash $(TOP)/tests/host/dkms.sh $(TOP)/build/dkms-check

# Man pages, each from one source: pagetrail(8) from the tables --help
# prints (tools/pagetrail/spec.c); pagetrail-load(8) and pagetrail(4) from
# man/*.md by scripts/mkman, pagetrail(4)'s sections from README.md's own.
MAN_OUT := $(TOP)/build/man
MAN_PAGES := $(MAN_OUT)/pagetrail.8 $(MAN_OUT)/pagetrail-load.8 $(MAN_OUT)/pagetrail.4

man: $(MAN_PAGES)

$(MAN_OUT)/pagetrail.8: $(TOOL_BIN)
	@mkdir -p $(MAN_OUT)
	$(TOOL_BIN) help --man > $@.tmp && mv $@.tmp $@

$(MAN_OUT)/%: $(TOP)/man/%.md $(TOP)/README.md $(TOP)/dkms.conf $(TOP)/scripts/mkman
	@mkdir -p $(MAN_OUT)
	$(TOP)/scripts/mkman $< > $@.tmp && mv $@.tmp $@

# The userspace side: the pagetrail command, the loader, the man pages and
# the bash completion (found by bash-completion under $(PREFIX)/share too).
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
install: $(TOOL_BIN) $(MAN_PAGES)
	install -D -m 755 $(TOOL_BIN) $(DESTDIR)$(PREFIX)/bin/pagetrail
	install -D -m 755 $(TOP)/scripts/pagetrail-load $(DESTDIR)$(PREFIX)/sbin/pagetrail-load
	install -D -m 644 $(MAN_OUT)/pagetrail.8 $(DESTDIR)$(MANDIR)/man8/pagetrail.8
	install -D -m 644 $(MAN_OUT)/pagetrail-load.8 $(DESTDIR)$(MANDIR)/man8/pagetrail-load.8
	install -D -m 644 $(MAN_OUT)/pagetrail.4 $(DESTDIR)$(MANDIR)/man4/pagetrail.4
	install -D -m 644 $(TOP)/tools/pagetrail/pagetrail.bash $(DESTDIR)$(BASHCOMPDIR)/pagetrail

# The module through DKMS (rebuilt for every kernel), and the command.
dkms-install: install
	$(TOP)/scripts/dkms-source /usr/src
	dkms add pagetrail/$(VERSION)
	dkms install pagetrail/$(VERSION)

help:
	@echo "make [KVER=|KDIR=]   build pagetrail.ko"
	@echo "make tests           also build nvsim, KUnit and test programs"
	@echo "make check           all tests on Debian 6.1, 6.12, 6.12-rt and the sanitizer kernel"
	@echo "make demo            R1 demo in QEMU"
	@echo "make bench           overhead ratios, measured in one VM run"
	@echo "make dkms-check      dkms add/build for the installed kernels"
	@echo "make man             pagetrail(8), pagetrail-load(8) and pagetrail(4) into build/man"
	@echo "make install         the pagetrail command, pagetrail-load, their man pages, pagetrail(4) and the bash completion (PREFIX=/usr/local)"
	@echo "make dkms-install    the module with DKMS, and make install"
