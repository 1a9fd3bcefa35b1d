#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/kernel-doc.sh [FILE...]
#	Run scripts/kernel-doc -none (from Debian's linux-source-6.1) over the
#	driver's sources, or FILEs: it prints a warning for every kernel-doc
#	comment that does not describe what it documents (a parameter, member
#	or enum value left out or misnamed, a malformed header).  Exit status:
#	0 when it prints nothing.
# tools/kernel-doc.sh --man DIR
#	Write the driver's kernel API manual: one section-9 page per
#	documented function, structure and enum, DIR/NAME.9 (a space in the
#	name, as in "enum srpt_fault_site", becomes "_"), made by kernel-doc
#	-man and split as the kernel's scripts/split-man.pl does.  The pages
#	are dated by the last commit (KBUILD_BUILD_TIMESTAMP), not the day of
#	the build.  Exit status: 0 when kernel-doc warned of nothing and at
#	least one page was written.
# tools/kernel-doc.sh --sources
#	Print the list of files the two forms above read.
#
# kernel-doc is unpacked once into build/kernel-doc/.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build/kernel-doc"
. "$top/tools/linux-source.sh"
linux_source_unpack kernel-doc "$dir" scripts/kernel-doc

cd "$top"
sources="ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h srpt_login_info.h srpt_compat.h srpt_trace.h"

# --sources: the files this script reads, for tests that count their
# comments.
if [ "${1:-}" = --sources ]; then
	echo "$sources"
	exit 0
fi

if [ "${1:-}" = --man ]; then
	[ $# = 2 ] || { echo "usage: $0 --man DIR" >&2; exit 1; }
	out=$2
	if [ -z "${KBUILD_BUILD_TIMESTAMP:-}" ] &&
		stamp=$(git -C "$top" log -1 --format=%cD 2>/dev/null); then
		KBUILD_BUILD_TIMESTAMP=$stamp
		export KBUILD_BUILD_TIMESTAMP
	fi
	mkdir -p "$out"
	rm -f "$out"/*.9
	err=$(mktemp)
	trap 'rm -f "$err"' EXIT
	# shellcheck disable=SC2086 # a list of file names
	# srpt_trace.h has events, no kernel-doc comments.
	perl "$dir/scripts/kernel-doc" -man ${sources% srpt_trace.h} 2>"$err" | awk -v out="$out" '
	/^\.TH "[^"]*" 9 "[^"]*"/ {
		if (page != "")
			close(page)
		name = $0
		sub(/^\.TH "[^"]*" 9 "/, "", name)
		sub(/".*/, "", name)
		gsub(/ /, "_", name)
		page = out "/" name ".9"
		n++
	}
	page != "" { print > page }
	END { if (!n) exit 1 }' || { echo "kernel-doc --man: no page written" >&2; exit 1; }
	[ ! -s "$err" ] || { cat "$err" >&2; exit 1; }
	echo "kernel-doc --man: $(find "$out" -name '*.9' | wc -l) pages in $out"
	exit 0
fi

files=${*:-$sources}
# shellcheck disable=SC2086
out=$(perl "$dir/scripts/kernel-doc" -none $files 2>&1) || true
[ -z "$out" ] || { echo "$out"; exit 1; }
