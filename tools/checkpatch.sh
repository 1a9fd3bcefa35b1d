#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run checkpatch.pl --strict (from Debian's linux-source-6.1) over the
# driver's sources.  checkpatch and its data files are unpacked once into
# build/checkpatch/.  Exit status: 0 when checkpatch finds nothing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build/checkpatch"
tarball=/usr/src/linux-source-6.1.tar.xz

if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	if [ ! -f "$tarball" ]; then
		echo "checkpatch: $tarball missing (apt-get install linux-source-6.1)" >&2
		exit 2
	fi
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch
fi

cd "$top"
files=${*:-"ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h"}
# --no-tree: we are not a kernel tree.  FILE_PATH_CHANGES and
# SPDX placement are judged as for files in drivers/.
# shellcheck disable=SC2086
perl "$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES -f $files
