#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/insn/build.sh OUTDIR
#	Build insn-count.so (a QEMU TCG plugin, see insn-count.c) and
#	insn-mark (the guest's marker) into OUTDIR.  The plugin is built
#	against the qemu-plugin.h of the QEMU that will load it: the header
#	comes from the source package of the installed qemu-system-x86
#	version, fetched once with a private apt state (the host's apt
#	sources and preferences are not touched) into
#	$SRPT_QEMU_CACHE (/var/cache/ib_srpt/qemu).
set -eu
top=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:?usage: $0 OUTDIR}
cache=${SRPT_QEMU_CACHE:-/var/cache/ib_srpt/qemu}
ver=$(dpkg-query -W -f '${source:Version}' qemu-system-x86)
hdr=$cache/$ver/qemu-plugin.h

if [ ! -f "$hdr" ]; then
	apt=$cache/apt
	mkdir -p "$apt/state/lists/partial" "$apt/cache/archives/partial" \
		"$apt/sources.list.d" "$apt/preferences.d" "$cache/$ver"
	: >"$apt/preferences"
	# The suites the host's own sources name (bookworm, its updates and
	# security), as deb-src.
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "deb-src [signed-by=$key] http://deb.debian.org/debian bookworm main"
		echo "deb-src [signed-by=$key] http://deb.debian.org/debian bookworm-updates main"
		echo "deb-src [signed-by=$key] http://deb.debian.org/debian-security bookworm-security main"
	} >"$apt/sources.list"
	set -- -o Dir::State="$apt/state" -o Dir::Cache="$apt/cache" \
		-o Dir::Etc::SourceList="$apt/sources.list" \
		-o Dir::Etc::SourceParts="$apt/sources.list.d" \
		-o Dir::Etc::Preferences="$apt/preferences" \
		-o Dir::Etc::PreferencesParts="$apt/preferences.d"
	apt-get "$@" update >/dev/null
	src=$(mktemp -d)
	chmod 755 "$src"	# apt downloads as _apt
	trap 'rm -rf "$src"' EXIT
	(cd "$src" && apt-get "$@" source --download-only "qemu=$ver" >/dev/null)
	tarball=$(find "$src" -name 'qemu_*.orig.tar.*' | head -n 1)
	[ -n "$tarball" ] || { echo "$0: no qemu source for $ver" >&2; exit 1; }
	member=$(tar -tf "$tarball" | grep '/include/qemu/qemu-plugin.h$' | head -n 1)
	tar -xf "$tarball" -O "$member" >"$hdr.tmp"
	mv "$hdr.tmp" "$hdr"
fi

mkdir -p "$out"
cc=${CC:-gcc}
$cc -O2 -Wall -Wextra -Werror -shared -fPIC -I"$(dirname "$hdr")" \
	-o "$out/insn-count.so" "$top/tools/bench/insn/insn-count.c" -lpthread
$cc -O2 -Wall -Wextra -Werror -static -o "$out/insn-mark" "$top/tools/bench/insn/insn-mark.c"
