#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lint gates beside t-build's (W=1, sparse, checkpatch): shellcheck finds
# nothing in any shell script of the tree (tools/shellcheck.sh list, one
# test each), and scripts/kernel-doc -none from linux-source-6.1 nothing in
# the module's sources (tools/kernel-doc.sh).  Two self-checks first show
# that each gate reports what it is meant to catch.
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
# check NAME CMD...: ok when CMD exits 0, its output as diagnostics otherwise.
check() {
	n=$((n + 1))
	_name=$1
	shift
	if "$@" >"$tmp/out" 2>&1; then
		echo "ok $n - $_name"
	else
		echo "not ok $n - $_name"
		head -n 60 "$tmp/out" | sed 's/^/# /'
	fi
}
# fails NAME CMD...: ok when CMD exits non-zero.
fails() {
	n=$((n + 1))
	if "$2" "$3" "$4" >"$tmp/out" 2>&1; then
		echo "not ok $n - $1"
		sed 's/^/# /' "$tmp/out"
	else
		echo "ok $n - $1"
	fi
}

# shellcheck disable=SC2016 # the script's own $1
printf '#!/bin/sh\nrm -rf $1/tmp\n' >"$tmp/bad.sh"
fails "self-check: shellcheck reports an unquoted argument" shellcheck "$tmp/bad.sh" ""
printf '/**\n * f() - does f\n * @a: first.\n */\nint f(int a, int b);\n' >"$tmp/bad.c"
fails "self-check: kernel-doc reports an undescribed parameter" tools/kernel-doc.sh "$tmp/bad.c" ""

for f in $(tools/shellcheck.sh list); do
	check "shellcheck $f" shellcheck "$f"
done
check "kernel-doc -none: ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h" tools/kernel-doc.sh
echo "1..$n"
