#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run checkpatch.pl --strict (from Debian's linux-source-6.1) over the
# driver's sources.  checkpatch and its data files are unpacked once into
# build/checkpatch/.  Exit status: 0 when checkpatch finds nothing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build/checkpatch"
. "$top/tools/linux-source.sh"
linux_source_unpack checkpatch "$dir" scripts/checkpatch.pl \
	scripts/spelling.txt scripts/const_structs.checkpatch

cd "$top"
files=${*:-"ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h srpt_compat.h"}
# --no-tree: we are not a kernel tree.  FILE_PATH_CHANGES and
# SPDX placement are judged as for files in drivers/.
# shellcheck disable=SC2086
perl "$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES -f $files
