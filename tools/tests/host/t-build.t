#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build hygiene: W=1 and sparse (C=2) print no warnings, checkpatch --strict
# finds nothing, and the Kbuild line is usable in-tree; the same for the IB
# CM test initiator (tools/ibcm-initiator/, built by "make tools").
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"
# Fails on any compiler or sparse diagnostic, not only on errors.
build_clean() {
	touch ib_srpt.c
	make "$@" >"$tmp/build" 2>&1 || { cat "$tmp/build"; return 1; }
	! grep -E 'warning:|error:' "$tmp/build"
}
# The same for the test initiator module, which "make tools" builds.
tools_clean() {
	touch tools/ibcm-initiator/srp_ibcm_ini.c
	make "$@" tools >"$tmp/build" 2>&1 || { cat "$tmp/build"; return 1; }
	! grep -E 'warning:|error:' "$tmp/build"
}
check "make W=1 builds ib_srpt.ko without warnings" build_clean W=1
check "make C=2 (sparse) without warnings" build_clean C=2
check "checkpatch.pl --strict clean" tools/checkpatch.sh
check "make W=1 tools builds srp_ibcm_ini.ko without warnings" tools_clean W=1
check "make C=2 tools (sparse) without warnings" tools_clean C=2
check "checkpatch.pl --strict clean on the IB CM test initiator" \
	tools/checkpatch.sh tools/ibcm-initiator/srp_ibcm_ini.c
check "checkpatch.pl --strict clean on the int3 race reproducer" \
	tools/checkpatch.sh tools/int3-race/int3_race.c
check "checkpatch.pl --strict clean on the harness's stall module" \
	tools/checkpatch.sh tools/tests/harness/stall/stall.c
# shellcheck disable=SC2016 # a literal $(CONFIG_...) in the pattern
check "Kbuild line names CONFIG_INFINIBAND_SRPT" \
	grep -q '^obj-$(CONFIG_INFINIBAND_SRPT)[[:space:]]*+= ib_srpt.o' Makefile
check "Kconfig depends on INFINIBAND_ADDR_TRANS and TARGET_CORE" \
	sh -c 'grep -q "depends on.*INFINIBAND_ADDR_TRANS" Kconfig && grep -q "depends on.*TARGET_CORE" Kconfig'
# shellcheck disable=SC2016 # expanded by the inner sh
check "modinfo lists the in-tree module parameters" \
	sh -c 'p=$(/sbin/modinfo -F parm ib_srpt.ko); for x in srp_max_req_size srpt_srq_size srpt_service_guid; do echo "$p" | grep -q "^$x:" || exit 1; done'
echo "1..$n"
