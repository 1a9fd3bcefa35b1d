# SPDX-License-Identifier: GPL-2.0
# TAP helpers of the host tests, sourced by tools/tests/host/t-*.t (not a
# test itself: prove runs *.t only).  Sourcing it moves to the top of the
# tree ($top) and makes a scratch directory ($tmp, removed on exit).
#
#   check NAME CMD...  ok when CMD exits 0; otherwise not ok, with up to
#                      TAP_DIAG_LINES (40) lines of its output as
#                      diagnostics, the last ones when TAP_DIAG_TAIL is set.
#   fails NAME CMD...  ok when CMD exits non-zero (a self-check that a gate
#                      reports what it must); its output as diagnostics
#                      otherwise.
# shellcheck shell=sh
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0

check() {
	n=$((n + 1))
	_name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok $n - $_name"
	else
		echo "not ok $n - $_name"
		if [ -n "${TAP_DIAG_TAIL:-}" ]; then
			tail -n "${TAP_DIAG_LINES:-40}" "$tmp/out"
		else
			head -n "${TAP_DIAG_LINES:-40}" "$tmp/out"
		fi | sed 's/^/# /'
	fi
}

fails() {
	n=$((n + 1))
	_name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "not ok $n - $_name"
		sed 's/^/# /' "$tmp/out"
	else
		echo "ok $n - $_name"
	fi
}
