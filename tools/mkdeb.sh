#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make deb": the Debian packages ib-srpt-dkms and ib-srpt-tools, built
# with dpkg-buildpackage -us -uc -b from a copy of the tree (without build/,
# .git and what .gitignore names) in build/deb/ib-srpt-VERSION, so the
# .debs, .buildinfo and .changes land in build/deb/ and the checkout stays
# clean.  Prints the kernels the module builds for ("make kernels": DKMS
# stops with a message on an older one) and the paths of the .debs last.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(make -s -C "$top" version)
[ -n "$ver" ] || { echo "mkdeb: no version in ib_srpt.h" >&2; exit 1; }
out=$top/build/deb
src=$out/ib-srpt-$ver

rm -rf "$out"
mkdir -p "$src"
tar -C "$top" --exclude=./build --exclude-vcs --exclude-vcs-ignores -cf - . |
	tar -C "$src" -xf -
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed; log in $out/build.log" >&2
	exit 1
}
rm -rf "$src"
echo "mkdeb: ib-srpt-dkms $ver builds for $(make -s -C "$top" kernels)"
ls "$out"/*.deb
