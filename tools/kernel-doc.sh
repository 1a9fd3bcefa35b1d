#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run scripts/kernel-doc -none (from Debian's linux-source-6.1) over the
# driver's sources, or FILEs: it prints a warning for every kernel-doc
# comment that does not describe what it documents (a parameter, member or
# enum value left out or misnamed, a malformed header).  kernel-doc is
# unpacked once into build/kernel-doc/.  Exit status: 0 when it prints
# nothing.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dir="$top/build/kernel-doc"
. "$top/tools/linux-source.sh"
linux_source_unpack kernel-doc "$dir" scripts/kernel-doc

cd "$top"
files=${*:-"ib_srpt.c ib_srpt.h srpt_wire.h srpt_iu.h srpt_mad.h srpt_login_info.h srpt_compat.h srpt_trace.h"}
# shellcheck disable=SC2086
out=$(perl "$dir/scripts/kernel-doc" -none $files 2>&1) || true
[ -z "$out" ] || { echo "$out"; exit 1; }
