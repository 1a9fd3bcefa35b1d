#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Every shell script of the tree, or shellcheck over them.
#
#   tools/shellcheck.sh list    the scripts, one a line
#   tools/shellcheck.sh [FILE...]  shellcheck (default severity, style
#                               included; settings in .shellcheckrc) over
#                               FILEs or every script; 0 when it finds nothing
#
# A shell script is a *.sh file (the sourced libraries have no #! line),
# dkms.conf (bash, sourced by dkms), or a file whose #! line names sh, bash
# or dash (scripts, tests *.t, tools/vm/vmtest).  Files come from git when
# the tree is a checkout (tracked and untracked, not ignored), else from
# find; build/ is never looked at.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files --cached --others --exclude-standard
	else
		find . -type f ! -path './build/*' ! -path './.git/*' | sed 's,^\./,,'
	fi
}

list() {
	files | sort -u | while IFS= read -r f; do
		[ -f "$f" ] || continue
		case $f in
		build/*) continue ;;
		*.sh|dkms.conf) echo "$f"; continue ;;
		esac
		if head -n 1 "$f" 2>/dev/null | grep -qE '^#! *(/usr)?/bin/(env +)?(sh|bash|dash)( |$)'; then
			echo "$f"
		fi
	done
}

if [ "${1:-}" = list ]; then
	list
	exit 0
fi
if [ $# -eq 0 ]; then
	# shellcheck disable=SC2046 # file names without blanks (list checks them)
	set -- $(list)
fi
exec shellcheck "$@"
