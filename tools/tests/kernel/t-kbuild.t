#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build hygiene on one of Debian's other kernels (SRPT_KERNEL, see
# tools/kernels.sh; the host's 6.1 has tools/tests/host/t-build.t): ib_srpt.ko
# and the IB CM test initiator srp_ibcm_ini.ko build for it with W=1 and with
# sparse (C=2) without a warning, sparse really ran (a kernel whose Makefile
# finds no sparse it accepts only says so in a line without "warning:"; for
# 7.x, tools/kernels.sh puts the scripts/checker-valid.sh Debian's headers
# lack in place and uses Debian unstable's sparse, which parses
# __typeof_unqual__), the module is built for that release and lists
# the in-tree module's parameters.  checkpatch is one for every kernel: the
# host set runs it.  The last build stays in build/kernels/RELEASE/ for the
# VM tests (tools/kernels.sh vmenv builds again only when a source is newer).
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/../host/tap.sh"
k=${SRPT_KERNEL:-}
case $k in
''|host)
	echo "1..0 # SKIP SRPT_KERNEL names none of Debian's other kernels (tools/tests/host/t-build.t builds for the host's)"
	exit 0
	;;
esac
if ! rel=$(tools/kernels.sh env "$k" 2>"$tmp/env" | sed -n 's/^KVER=//p') || [ -z "$rel" ]; then
	echo "not ok 1 - $k fetched (tools/kernels.sh env $k)"
	sed 's/^/# /' "$tmp/env"
	echo "1..1"
	exit 1
fi
log=build/kernels/$rel/build.log
# build_clean MAKEARG: both modules built, no diagnostic in the log.
build_clean() {
	nice -n 19 tools/kernels.sh build "$k" "$@" || return 1
	! grep -E 'warning:|error:|WARNING:' "$log"
}
# sparse_ran: one CHECK line per module (ib_srpt, srp_ibcm_ini).
sparse_ran() {
	c=$(grep -c '^  CHECK ' "$log")
	[ "$c" -ge 2 ] && return 0
	echo "$c CHECK lines in $log (2 expected):"
	grep -i -E 'sparse|checker' "$log" | sort -u
	return 1
}
check "$rel: W=1 builds ib_srpt.ko and srp_ibcm_ini.ko without warnings" build_clean W=1
check "$rel: C=2 (sparse) without warnings" build_clean C=2
check "$rel: sparse ran on both modules" sparse_ran
# shellcheck disable=SC2016 # expanded by the inner sh
check "$rel: vermagic of ib_srpt.ko and srp_ibcm_ini.ko is $rel" sh -c '
	for m in "$1"/ib_srpt.ko "$1"/srp_ibcm_ini.ko; do
		v=$(/sbin/modinfo -F vermagic "$m" | cut -d" " -f1)
		[ "$v" = "$2" ] || { echo "$m: $v"; exit 1; }
	done' - "build/kernels/$rel" "$rel"
# shellcheck disable=SC2016 # expanded by the inner sh
check "$rel: modinfo lists the in-tree module parameters" sh -c '
	p=$(/sbin/modinfo -F parm "$1"); for x in srp_max_req_size srpt_srq_size srpt_service_guid; do
		echo "$p" | grep -q "^$x:" || exit 1
	done' - "build/kernels/$rel/ib_srpt.ko"
echo "1..$n"
