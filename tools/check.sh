#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The test runner behind "make check": host-side tests (build hygiene, unit
# tests of the pure wire code, the splat check), the VM harness's own tests
# and VM tests, each set driven by prove.
#
#   tools/check.sh all|host|harness|vm|kbuild|core|kernels
#
# The harness tests (tools/tests/harness/) run on the host but boot VMs
# through tools/vm/vmtest (a few minutes), so they are a set of their own,
# not part of "host", which stays quick and needs no QEMU.  "all" runs them
# before the VM tests, whose results rest on that harness.
#
# SRPT_UNDER_TEST=intree runs the VM tests against the distro's in-tree
# ib_srpt instead of ours.  SRPT_VM_TESTS="t-a.t t-b.t" limits the VM tests.
#
# Debian's other kernels (issue 25; tools/kernels.sh): SRPT_KERNEL=SERIES
# (bpo-6.12, trixie-6.12, trixie-bpo; host or unset: the host's 6.1) runs
# the VM tests on that kernel with this tree's module built for it, trixie's
# kernels with a Debian 13 root (tools/vm/vmtest).
#   kbuild   build hygiene on SRPT_KERNEL (tools/tests/kernel/; on the
#            host's kernel, tools/tests/host/t-build.t)
#   core     the named core set on SRPT_KERNEL: kbuild, then the VM tests
#            of $core_tests (SRPT_VM_TESTS overrides them)
#   kernels  every kernel: "all" on the host's (with the others' linux-source
#            fetched first, for t-intree), kbuild and every VM test on each
#            of the others; the wall time of each
#   ci-kernels  what CI runs on the others (make check-kernels-ci): kbuild
#            and the CI's VM tests on each
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
what=${1:-all}
rc=0
t0=$(date +%s)

# The VM tests' QEMU: bookworm-backports' (tools/kernels.sh qemu, fetched
# once), found here once for every set that boots a guest; SRPT_VM_QEMU
# already set wins ("host": the host's qemu-system-x86_64, Debian 12's
# 7.2, on which 6.12 and later boot with one TCG thread).
case $what in
host|kbuild) ;;
*)
	if [ -z "${SRPT_VM_QEMU:-}" ]; then
		SRPT_VM_QEMU=$(tools/kernels.sh qemu) || {
			echo "check: FAILED: QEMU not ready (tools/kernels.sh qemu)"
			exit 1
		}
	fi
	export SRPT_VM_QEMU
	echo "check: QEMU: $SRPT_VM_QEMU"
	;;
esac

run_host() {
	prove -v tools/tests/host/*.t || rc=1
}

run_harness() {
	prove -v tools/tests/harness/*.t || rc=1
}

# "all": the host set runs beside the harness set, whose guests spend most
# of their time waiting for a timeout or a signal (a core is free: the
# host set alone 296 s, the harness 303 s in the final CI run of
# 2026-12-07 morning), its output after the harness's; then the VM tests.
run_all() {
	mkdir -p "$top/build/ci"
	hlog=$top/build/ci/host.log
	# run_host records a failure in rc, in this subshell: its status.
	(rc=0; run_host; exit $rc) >"$hlog" 2>&1 &
	hpid=$!
	run_harness
	wait "$hpid" || rc=1
	echo "check: the host set (beside the harness set):"
	cat "$hlog"
	run_vm
}

# The core set each of Debian's other kernels runs (issue 25, item 6).
core_tests="t-load.t t-login.t t-io.t t-differential.t t-ibcm.t t-dkms.t t-lifetimes.t"
other_kernels="bpo-6.12 trixie-6.12 trixie-bpo"

# kernel_env: for SRPT_KERNEL, what vmtest boots (tools/kernels.sh vmenv:
# fetched, modules built), once for every test; SRPT_VM_KERNEL already
# set wins, as in vmtest.
kernel_env() {
	case ${SRPT_KERNEL:-host} in host) return 0 ;; esac
	[ -z "${SRPT_VM_KERNEL:-}" ] || return 0
	kenv=$(tools/kernels.sh vmenv "$SRPT_KERNEL") || {
		echo "check: FAILED: kernel $SRPT_KERNEL not ready (tools/kernels.sh vmenv)"
		return 1
	}
	eval "$kenv"
	echo "check: kernel $SRPT_KERNEL: $SRPT_VM_KERNEL, $SRPT_KO${SRPT_VM_ROOT:+, root $SRPT_VM_ROOT}"
}

run_kbuild() {
	case ${SRPT_KERNEL:-host} in
	host) prove -v tools/tests/host/t-build.t || rc=1 ;;
	*) prove -v tools/tests/kernel/t-kbuild.t || rc=1 ;;
	esac
}

run_vm() {
	# Both are part of this tree: one missing (or vmtest without its run
	# bit, which prove -e needs) is a broken tree, not a VM set that passed.
	if ! ls tools/tests/vm/*.t >/dev/null 2>&1 || [ ! -x tools/vm/vmtest ]; then
		echo "check: FAILED: the VM harness (tools/vm/vmtest, executable) or the VM tests (tools/tests/vm/*.t) are missing"
		rc=1
		return
	fi
	( kernel_env && run_vm_tests ) || rc=1
}

run_vm_tests() {
	tests=""
	for t in ${SRPT_VM_TESTS:-$(ls tools/tests/vm/*.t)}; do
		case $t in
		*/*) tests="$tests $t" ;;
		*) tests="$tests tools/tests/vm/$t" ;;
		esac
	done
	# --timer: each test's wall time in the log, for the CI budget (the
	# time includes the wait for the VM lock).
	# shellcheck disable=SC2086
	prove -v --timer -e tools/vm/vmtest $tests
}

run_core() {
	run_kbuild
	SRPT_VM_TESTS=${SRPT_VM_TESTS:-$core_tests}
	run_vm
}

# Options of env for a run on one kernel: the VM tests' variables,
# SRPT_VM_* and SRPT_KO, are each kernel's, none inherited.
kvars="-u SRPT_KERNEL -u SRPT_VM_KERNEL -u SRPT_VM_MODULES -u SRPT_KO -u SRPT_IBCM_KO -u SRPT_VM_ROOT -u SRPT_VM_SHARE"

# Each kernel in turn, whatever the one before gave, each in a run of its
# own (env $kvars).  The other kernels' linux-source comes first: the host
# set's t-intree builds the driver in each kernel's own source tree it
# finds (and skips those not fetched, as on a fresh machine).
run_kernels() {
	summary=
	for k in $other_kernels; do
		tools/kernels.sh source "$k" >/dev/null || {
			echo "check: FAILED: the linux-source of $k (tools/kernels.sh source $k)"
			rc=1
		}
	done
	for k in host $other_kernels; do
		_rc0=$rc rc=0 _t0=$(date +%s)
		# shellcheck disable=SC2086 # kvars: options of env
		if [ "$k" = host ]; then
			env $kvars "$0" all || rc=1
		else
			env $kvars SRPT_KERNEL="$k" "$0" kbuild || rc=1
			env $kvars SRPT_KERNEL="$k" "$0" vm || rc=1
		fi
		summary="$summary
check: $k: $([ $rc = 0 ] && echo passed || echo FAILED), $(($(date +%s) - _t0)) s"
		[ $rc = 0 ] && rc=$_rc0
	done
	echo "$summary"
}

# What CI runs after "make check" (make check-kernels-ci): on each of
# $CI_KERNELS, build hygiene (kbuild) and the VM tests $CI_KERNEL_TESTS
# (default: the core set but t-dkms), and t-dkms too on those of
# $CI_DKMS_KERNELS (default: all of them).  Each kernel's kbuild, host
# work only (under a minute), runs while the VM tests of the kernel before
# it run (tools/kernels.sh's lock keeps their cache work apart); its
# output follows theirs.
run_ci_kernels() {
	logd=$top/build/ci
	mkdir -p "$logd"
	prev=
	for k in ${CI_KERNELS:-$other_kernels} ''; do
		kb=
		if [ -n "$k" ]; then
			# shellcheck disable=SC2086 # kvars: options of env
			env $kvars SRPT_KERNEL="$k" "$0" kbuild >"$logd/kbuild-$k.log" 2>&1 &
			kb=$!
		fi
		[ -z "$prev" ] || ci_vm "$prev"
		if [ -n "$kb" ]; then
			wait "$kb" || rc=1
			echo "check-kernels-ci: $k: kbuild"
			cat "$logd/kbuild-$k.log"
		fi
		prev=$k
	done
}

# ci_vm SERIES: the CI's VM tests on SERIES.
ci_vm() {
	t=${CI_KERNEL_TESTS:-$(echo "$core_tests" | sed 's/ *t-dkms\.t//')}
	case " ${CI_DKMS_KERNELS-${CI_KERNELS:-$other_kernels}} " in
	*" $1 "*)
		case " $t " in *" t-dkms.t "*) ;; *) t="$t t-dkms.t" ;; esac
		;;
	esac
	echo "check-kernels-ci: $1: $t"
	# shellcheck disable=SC2086 # kvars: options of env
	env $kvars SRPT_KERNEL="$1" SRPT_VM_TESTS="$t" "$0" vm || rc=1
}

case $what in
all) run_all ;;
host) run_host ;;
harness) run_harness ;;
vm) run_vm ;;
kbuild) run_kbuild ;;
core) run_core ;;
kernels) run_kernels ;;
ci-kernels) run_ci_kernels ;;
*) echo "usage: $0 all|host|harness|vm|kbuild|core|kernels|ci-kernels" >&2; exit 2 ;;
esac

[ "$what" = kernels ] ||
	echo "check: $what on ${SRPT_KERNEL:-host} took $(($(date +%s) - t0)) s"
if [ $rc -eq 0 ]; then
	echo "check: all test sets passed"
else
	echo "check: FAILED"
fi
exit $rc
