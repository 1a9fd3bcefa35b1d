# SPDX-License-Identifier: GPL-2.0
# Sourced by tools/checkpatch.sh and tools/kernel-doc.sh: the kernel's own
# scripts, unpacked from Debian's linux-source-6.1.
#
# linux_source_unpack TOOL DIR FILE...: unpack FILEs (paths inside the
# kernel tree) into DIR unless the first one is there already; TOOL names
# the caller in the error when the tarball is missing (exit 2).
# shellcheck shell=sh
linux_source_unpack() {
	_ls_tool=$1
	_ls_dir=$2
	shift 2
	[ ! -f "$_ls_dir/$1" ] || return 0
	_ls_tarball=/usr/src/linux-source-6.1.tar.xz
	if [ ! -f "$_ls_tarball" ]; then
		echo "$_ls_tool: $_ls_tarball missing (apt-get install linux-source-6.1)" >&2
		exit 2
	fi
	mkdir -p "$_ls_dir"
	for _ls_f; do
		set -- "$@" "linux-source-6.1/$_ls_f"
		shift
	done
	tar -xJf "$_ls_tarball" -C "$_ls_dir" --strip-components=1 "$@"
}
