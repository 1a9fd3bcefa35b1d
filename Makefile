# SPDX-License-Identifier: GPL-2.0
#
# In a kernel tree (drivers/infiniband/ulp/srpt/) only the kbuild half below
# is used, from its Kbuild line to the "else": "make kernel-patch" writes it
# as the in-tree Makefile.  Out of tree this Makefile builds against the
# headers of KVER and carries the project's targets: see "make help".

# The kernels the driver supports: Linux SRPT_KERNEL_MIN (Debian 12's) and
# later.  SRPT_KERNELS_TESTED are the series its tests build for
# (tools/kernels.sh: Debian 12, bookworm-backports, Debian 13,
# trixie-backports).  "make deb" states both.
SRPT_KERNEL_MIN := 6.1
SRPT_KERNELS_TESTED := 6.1 6.12 7.3

ifneq ($(KERNELRELEASE),)

# Out of tree (DKMS, "make"), a kernel the driver cannot be built for stops
# the build here with one line, not a page of compiler errors: one older
# than SRPT_KERNEL_MIN, or whose headers lack what the driver needs: the
# headers the feature tests below read, with alloc_workqueue() and LIO's
# target_submit_prep() (Linux 5.13) in them (without those headers the
# tests would find every feature absent).  "make clean" is not stopped.
srpt_older = $(shell printf '%s\n' $(1) $(2) | sort -C -V || echo y)
srpt_needs = $(if $(shell grep -qsw '$(2)' $(srctree)/include/$(1) && echo y),,$(2) in include/$(1))
srpt_lacks := $(strip $(call srpt_needs,linux/workqueue.h,alloc_workqueue) \
	$(call srpt_needs,target/target_core_fabric.h,target_submit_prep))
ifeq ($(filter __clean,$(PHONY)),)
ifeq ($(call srpt_older,$(SRPT_KERNEL_MIN),$(VERSION).$(PATCHLEVEL)),y)
$(error ib_srpt: kernel $(KERNELRELEASE) (Linux $(VERSION).$(PATCHLEVEL)) is not supported: the driver needs Linux $(SRPT_KERNEL_MIN) or later (tested: $(SRPT_KERNELS_TESTED)))
endif
ifneq ($(srpt_lacks),)
$(error ib_srpt: kernel $(KERNELRELEASE) is not supported: its headers ($(srctree)) lack $(srpt_lacks))
endif
endif

obj-$(CONFIG_INFINIBAND_SRPT)	+= ib_srpt.o

# The trace events (srpt_trace.h): define_trace.h includes the header by
# its TRACE_INCLUDE_PATH, "." here, which must find it in this directory.
CFLAGS_ib_srpt.o := -I$(src)

# Kernel features srpt_compat.h adapts to, found in the kernel's own
# headers (not by version): $(srctree)/include holds them in a kernel tree
# and in Debian's split headers alike (the -common package).
srpt_have = $(if $(shell grep -qsw '$(2)' $(srctree)/include/$(1) && echo y),-DSRPT_HAVE_$(3))
ccflags-y += $(call srpt_have,linux/workqueue.h,WQ_PERCPU,WQ_PERCPU)
ccflags-y += $(call srpt_have,target/target_core_fabric.h,direct_submit_supp,FABRIC_SUBMIT_TYPE)
ccflags-y += $(call srpt_have,target/target_core_fabric.h,direct_compl_supp,FABRIC_COMPL_TYPE)

else

# Newest kernel with headers installed; the host need not run it.
KVER ?= $(shell ls -d /lib/modules/*/build 2>/dev/null | sed 's,/lib/modules/,,;s,/build,,' | sort -V | tail -n 1)
KDIR ?= /lib/modules/$(KVER)/build
SRC := $(CURDIR)
KBUILD = $(MAKE) -C $(KDIR) M=$(SRC) CONFIG_INFINIBAND_SRPT=m
# The IB CM test initiator (tools/ibcm-initiator/), an out-of-tree module.
KBUILD_INI = $(MAKE) -C $(KDIR) M=$(SRC)/tools/ibcm-initiator

.PHONY: all modules install uninstall clean help man deps lint unit check check-host check-harness check-vm check-intree check-kernel-core check-kernels check-kernels-ci demo tools debug-kernel check-debug check-faults check-faults-cover check-faults-sample fuzz \
	install-src install-systemd uninstall-systemd dkms-install dkms-uninstall deb version kernels kernel-patch bench bench-gate

# The version, written once: SRPT_DRV_VERSION in ib_srpt.h (MODULE_VERSION).
# dkms.conf and the Debian packages take it from there; debian/changelog
# must name it (debian/rules checks).
VERSION := $(shell sed -n 's/^\#define SRPT_DRV_VERSION "\(.*\)"$$/\1/p' $(SRC)/ib_srpt.h)
# What DKMS builds from (/usr/src/ib_srpt-VERSION).
MODULE_SRC := Makefile Kconfig ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h \
	srpt_login_info.h srpt_compat.h srpt_trace.h

all: modules

modules:
	@test -d "$(KDIR)" || { echo "no kernel headers at $(KDIR): run tools/install-deps.sh or set KVER/KDIR" >&2; exit 1; }
	$(KBUILD) modules

# Installs into updates/, which depmod ranks ahead of the in-tree module,
# and the systemd drop-in that orders the target service after the RDMA
# devices.
install: modules install-systemd
	$(KBUILD) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)

uninstall: uninstall-systemd
	rm -f /lib/modules/$(KVER)/updates/ib_srpt.ko*
	depmod -a $(KVER)

# systemd/ib_srpt.conf as a drop-in of rtslib-fb's target service, under
# each name it has: rtslib-fb-targetctl.service (Debian's package),
# target.service (rtslib-fb's own, other distributions).  The .deb ships
# Debian's only (SYSTEMD_TARGET_UNITS).  systemd reads it at the next boot
# or daemon-reload.
SYSTEMD_UNIT_DIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
SYSTEMD_TARGET_UNITS ?= rtslib-fb-targetctl.service target.service
install-systemd:
	for u in $(SYSTEMD_TARGET_UNITS); do \
		install -D -m 0644 $(SRC)/systemd/ib_srpt.conf "$(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u.d/ib_srpt.conf" || exit 1; \
	done
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

uninstall-systemd:
	for u in $(SYSTEMD_TARGET_UNITS); do \
		rm -f "$(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u.d/ib_srpt.conf"; \
		rmdir "$(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u.d" 2>/dev/null || :; \
	done
	if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

# The module source for DKMS, into DESTDIR (dkms.conf with the version).
install-src:
	@test -n "$(DESTDIR)" || { echo "install-src: set DESTDIR" >&2; exit 1; }
	install -d "$(DESTDIR)"
	cd $(SRC) && install -m 0644 $(MODULE_SRC) "$(DESTDIR)/"

# DKMS without the Debian package: /usr/src/ib_srpt-VERSION, then dkms
# builds and installs it for KVER and rebuilds it for every new kernel.
dkms-install: install-systemd
	$(MAKE) install-src DESTDIR=/usr/src/ib_srpt-$(VERSION)
	sed 's/#MODULE_VERSION#/$(VERSION)/' $(SRC)/dkms.conf >/usr/src/ib_srpt-$(VERSION)/dkms.conf
	dkms status -m ib_srpt -v $(VERSION) | grep -q . || dkms add -m ib_srpt -v $(VERSION)
	dkms install -m ib_srpt -v $(VERSION) -k $(KVER)

dkms-uninstall: uninstall-systemd
	dkms remove -m ib_srpt -v $(VERSION) --all
	rm -rf /usr/src/ib_srpt-$(VERSION)

# Debian packages ib-srpt-dkms and ib-srpt-tools into build/deb/.
deb: deps
	tools/mkdeb.sh

version:
	@echo $(VERSION)

kernels:
	@echo "Linux $(SRPT_KERNEL_MIN) and later (older kernels stop the build); tested: $(SRPT_KERNELS_TESTED)"

# The patch that puts this driver into a kernel tree in place of its
# drivers/infiniband/ulp/srpt (tools/kernel-patch.sh), against LINUX: a
# kernel tree or a linux-source tarball, by default Debian's linux-source
# of KVER.  Host test t-intree applies it to each Debian kernel's source
# and builds the module there (tools/intree.sh).
LINUX ?= /usr/src/linux-source-$(shell echo $(KVER) | sed 's/^\([0-9]*\.[0-9]*\).*/\1/').tar.xz
kernel-patch:
	@tools/kernel-patch.sh $(LINUX)

# The userspace SRP initiator srp-probe and the hostile-input suite; the
# kernel-side IB CM test initiator srp_ibcm_ini.ko (VM tests only).
tools:
	$(MAKE) -C tools/srp-probe O=$(SRC)/build/srp-probe
	@test -d "$(KDIR)" || { echo "no kernel headers at $(KDIR): run tools/install-deps.sh or set KVER/KDIR" >&2; exit 1; }
	$(KBUILD_INI) modules

# The kernel API manual: a section-9 page per kernel-doc comment, in
# build/man/ (man -l build/man/srpt_init_ch_qp.9).
man:
	@tools/kernel-doc.sh --man $(SRC)/build/man

clean:
	$(KBUILD) clean 2>/dev/null || true
	$(KBUILD_INI) clean 2>/dev/null || true
	rm -rf build

help:
	@echo "make              build ib_srpt.ko for KVER=$(KVER)"
	@echo "make install      install into /lib/modules/KVER/updates, run depmod, add the systemd drop-in"
	@echo "make uninstall    remove what 'make install' installed"
	@echo "make deb          Debian packages ib-srpt-dkms, ib-srpt-tools in build/deb/"
	@echo "make dkms-install DKMS without the package: /usr/src/ib_srpt-VERSION, dkms install"
	@echo "make dkms-uninstall remove what 'make dkms-install' installed"
	@echo "make kernel-patch the patch that replaces drivers/infiniband/ulp/srpt in a kernel"
	@echo "                  tree (LINUX=tree or linux-source tarball; default: KVER's)"
	@echo "make kernels      the kernels the driver supports"
	@echo "make check        install test dependencies, build, lint, unit and VM tests"
	@echo "make check-host   only the host-side tests (lint, unit tests, splat check)"
	@echo "make check-harness only the VM harness's own tests (boots VMs)"
	@echo "make check-vm     only the VM tests (SRPT_UNDER_TEST=intree for the in-tree driver)"
	@echo "make check-intree the VM tests against the distro's in-tree ib_srpt"
	@echo "make check-kernel-core SRPT_KERNEL=bpo-6.12|trixie-6.12|trixie-bpo"
	@echo "                  build hygiene and the core VM tests on that kernel"
	@echo "make check-kernels make check on 6.1, every VM test on the other kernels (hours)"
	@echo "make debug-kernel build (once, cached) a KASAN/UBSAN/lockdep/kmemleak kernel"
	@echo "make check-debug  data-path and hostile VM tests on that kernel (slow)"
	@echo "make check-faults the fault sweep on that kernel: the calls of the driver that"
	@echo "                  can fail, failed in turn on every path (hours)"
	@echo "make check-faults-cover every site failed once, on the first path that calls it"
	@echo "make check-faults-sample a handful of its injections (not in make check: only the"
	@echo "                  debug kernel has fault injection)"
	@echo "make man          the kernel API manual: section-9 pages from kernel-doc in build/man/"
	@echo "make tools        build/srp-probe/: srp-probe (userspace SRP initiator), srp-hostile;"
	@echo "                  tools/ibcm-initiator/srp_ibcm_ini.ko (IB CM test initiator)"
	@echo "make demo         boot the VM, export a RAM disk, log in with ib_srp, run fio"
	@echo "make fuzz         run each libFuzzer harness of the wire code FUZZ_SECONDS (60) s"
	@echo "make bench        in-tree ib_srpt against ours in one VM boot (about an hour;"
	@echo "                  BENCH_QUICK=1 for a short run): build/bench/report.md, plots"
	@echo "make bench-gate BASE=<ref>  instructions per I/O of the working tree's driver"
	@echo "                  against BASE's (a few minutes); fails if it costs more"

deps:
	sh tools/install-deps.sh

check: deps
	$(MAKE) modules tools
	tools/check.sh all

# One command on a fresh Debian 12 machine: packages, module, VM, SRP login.
demo: deps
	$(MAKE) modules
	SRPT_TEST_TIMEOUT=400 tools/vm/vmtest tools/demo/demo.t

check-host: modules
	tools/check.sh host

check-harness:
	tools/check.sh harness

# t-dkms installs the packages (make check builds them in host test t-deb).
check-vm: modules tools
	tools/mkdeb.sh
	tools/check.sh vm

check-intree: tools
	SRPT_UNDER_TEST=intree tools/check.sh vm

# Debian's other kernels (tools/kernels.sh; issue 25), not part of "make
# check": SRPT_KERNEL=bpo-6.12|trixie-6.12|trixie-bpo selects one for
# check-vm and check-kernel-core (fetched, the modules built for it, trixie's
# booted with a Debian 13 root).  check-kernel-core: build hygiene and the
# core VM tests on SRPT_KERNEL; check-kernels: "make check" on the host's
# 6.1, build hygiene and every VM test on each of the others.
check-kernel-core: deps tools
	tools/mkdeb.sh
	tools/check.sh core

check-kernels: deps modules tools
	tools/mkdeb.sh
	tools/check.sh kernels

# What CI runs after "make check" (.ci/run): on bookworm-backports' 6.12
# (Debian 12 root), Debian 13's 6.12 and trixie-backports' 7.x (Debian 13
# root), the core set of issue 25: build hygiene (W=1, sparse), module load
# and parameters, logins, I/O, the drop-in comparison with that kernel's
# own in-tree ib_srpt, IB CM logins and object lifetimes (device removal
# under I/O); t-dkms (the Debian package, built by DKMS in the guest) on
# the kernels of CI_DKMS_KERNELS (all three).  Each kernel's build hygiene
# runs while the VM tests of the one before run (tools/check.sh
# ci-kernels).  Documentation/testing.rst, "CI's time budget", has the
# figures.
CI_KERNELS ?= bpo-6.12 trixie-6.12 trixie-bpo
CI_KERNEL_TESTS ?= t-load.t t-login.t t-io.t t-differential.t t-ibcm.t t-lifetimes.t
CI_DKMS_KERNELS ?= $(CI_KERNELS)
check-kernels-ci: deps tools
	tools/mkdeb.sh
	CI_KERNELS="$(CI_KERNELS)" CI_KERNEL_TESTS="$(CI_KERNEL_TESTS)" \
		CI_DKMS_KERNELS="$(CI_DKMS_KERNELS)" tools/check.sh ci-kernels

# libFuzzer harnesses of the pure wire code (tools/fuzz/), FUZZ_SECONDS each
# (FUZZ_HARNESSES="cmd names" limits them); new inputs and crashes go to
# build/fuzz/.  "make check" runs a short smoke pass (t-fuzz.t).
FUZZ_SECONDS ?= 60
fuzz: deps
	tools/fuzz/fuzz.sh run $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# Not part of "make check": throughput, CPU per I/O and login times of the
# in-tree driver and ours, side by side in one boot (tools/bench/bench.sh).
bench: deps
	$(MAKE) modules tools
	tools/bench/bench.sh

# Not part of "make check": the working tree's instructions per I/O against
# BASE's (a git ref), deterministic, a few minutes (tools/bench/gate.sh).
bench-gate: deps
	@[ -n "$(BASE)" ] || { echo "usage: make bench-gate BASE=<git ref>" >&2; exit 2; }
	tools/bench/gate.sh $(BASE)

# Not part of "make check": a kernel build (20 min), then slow VM tests.
debug-kernel: deps
	tools/debug-kernel/build.sh

check-debug: deps
	tools/debug-kernel/check-debug.sh

# Not part of "make check" either, nor is its sample: Debian's 6.1 has no
# CONFIG_FAULT_INJECTION, so both run on the debug kernel only.
check-faults: deps
	tools/debug-kernel/check-faults.sh

check-faults-cover: deps
	SRPT_FAULTS_MODE=cover tools/debug-kernel/check-faults.sh

check-faults-sample: deps
	SRPT_FAULTS_MODE=sample tools/debug-kernel/check-faults.sh

endif
