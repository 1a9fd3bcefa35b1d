#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Lint gates beside t-build's (W=1, sparse, checkpatch): shellcheck finds
# nothing in any shell script of the tree (tools/shellcheck.sh list, one
# test each), and scripts/kernel-doc -none from linux-source-6.1 nothing in
# the module's sources (tools/kernel-doc.sh), and pyflakes3 nothing in any
# Python program (*.py and files whose #! line names python3, such as
# srpt-stat).  Self-checks first show that each gate reports what it is
# meant to catch.
TAP_DIAG_LINES=60
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"

# shellcheck disable=SC2016 # the script's own $1
printf '#!/bin/sh\nrm -rf $1/tmp\n' >"$tmp/bad.sh"
fails "self-check: shellcheck reports an unquoted argument" shellcheck "$tmp/bad.sh"
printf '/**\n * f() - does f\n * @a: first.\n */\nint f(int a, int b);\n' >"$tmp/bad.c"
fails "self-check: kernel-doc reports an undescribed parameter" tools/kernel-doc.sh "$tmp/bad.c"
printf 'import os\n' >"$tmp/bad.py"
fails "self-check: pyflakes3 reports an unused import" pyflakes3 "$tmp/bad.py"

for f in $(tools/shellcheck.sh list); do
	check "shellcheck $f" shellcheck "$f"
done
# Python programs: git's files (build/ is ignored), *.py or a python #! line.
for f in $(git ls-files --cached --others --exclude-standard | while IFS= read -r p; do
	case $p in *.py) echo "$p" ;; *) [ -f "$p" ] && head -n 1 "$p" | grep -q '^#!.*python' && echo "$p" ;; esac
done); do
	check "pyflakes3 $f" pyflakes3 "$f"
done
check "kernel-doc -none: ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h srpt_login_info.h srpt_compat.h srpt_trace.h" tools/kernel-doc.sh
echo "1..$n"
