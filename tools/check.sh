#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The test runner behind "make check": host-side tests (build hygiene, unit
# tests of the pure wire code, the splat check), the VM harness's own tests
# and VM tests, each set driven by prove.
#
#   tools/check.sh all|host|harness|vm
#
# The harness tests (tools/tests/harness/) run on the host but boot VMs
# through tools/vm/vmtest (a few minutes), so they are a set of their own,
# not part of "host", which stays quick and needs no QEMU.  "all" runs them
# before the VM tests, whose results rest on that harness.
#
# SRPT_UNDER_TEST=intree runs the VM tests against the distro's in-tree
# ib_srpt instead of ours.  SRPT_VM_TESTS="t-a.t t-b.t" limits the VM tests.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
what=${1:-all}
rc=0

run_host() {
	prove -v tools/tests/host/*.t || rc=1
}

run_harness() {
	prove -v tools/tests/harness/*.t || rc=1
}

run_vm() {
	# Both are part of this tree: one missing (or vmtest without its run
	# bit, which prove -e needs) is a broken tree, not a VM set that passed.
	if ! ls tools/tests/vm/*.t >/dev/null 2>&1 || [ ! -x tools/vm/vmtest ]; then
		echo "check: FAILED: the VM harness (tools/vm/vmtest, executable) or the VM tests (tools/tests/vm/*.t) are missing"
		rc=1
		return
	fi
	tests=""
	for t in ${SRPT_VM_TESTS:-$(ls tools/tests/vm/*.t)}; do
		case $t in
		*/*) tests="$tests $t" ;;
		*) tests="$tests tools/tests/vm/$t" ;;
		esac
	done
	# shellcheck disable=SC2086
	prove -v -e tools/vm/vmtest $tests || rc=1
}

case $what in
all) run_host; run_harness; run_vm ;;
host) run_host ;;
harness) run_harness ;;
vm) run_vm ;;
*) echo "usage: $0 all|host|harness|vm" >&2; exit 2 ;;
esac

if [ $rc -eq 0 ]; then
	echo "check: all test sets passed"
else
	echo "check: FAILED"
fi
exit $rc
