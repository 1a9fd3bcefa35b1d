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
files=${*:-"ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h srpt_login_info.h srpt_compat.h srpt_trace.h"}
rc=0
for f in $files; do
	ignore=FILE_PATH_CHANGES
	# TRACE_EVENT()'s layout, as every trace header of the kernel has it:
	# TP_STRUCT__entry( and TP_fast_assign( end their lines, and TP_PROTO
	# is indented one tab, not aligned with "TRACE_EVENT(".  Only these
	# two checks, only in the trace header.
	case $f in
	*_trace.h) ignore=$ignore,OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT ;;
	esac
	# --no-tree: we are not a kernel tree.  FILE_PATH_CHANGES and
	# SPDX placement are judged as for files in drivers/.
	perl "$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
		--ignore "$ignore" -f "$f" || rc=1
done
exit $rc
