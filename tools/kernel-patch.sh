#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel-patch.sh ("make kernel-patch"): the patch that replaces a kernel's
# drivers/infiniband/ulp/srpt with this driver (issue 25), a git diff
# against that kernel's own files, for "patch -p1" or "git apply" at the
# top of its tree:
#
#   tools/kernel-patch.sh [-o FILE] LINUX
#
# LINUX is a kernel source tarball (Debian's linux-source-X.Y.tar.xz) or an
# unpacked kernel tree.  The patch writes what DKMS builds from
# (MODULE_SRC of the Makefile: ib_srpt.c, ib_srpt.h, the wire code headers,
# srpt_compat.h, Kconfig) as it is here, with the kbuild half of our
# Makefile as the in-tree Makefile (the Kbuild line and the feature tests
# srpt_compat.h reads), and deletes the files of the kernel's directory the
# driver does not use (ib_dm_mad.h).  FILE defaults to
# build/kernel-patch/ib_srpt-VERSION-linux-KERNELVERSION.patch; its path is
# printed.  tools/intree.sh applies it and builds the module in Debian's
# kernel trees (host test t-intree).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "kernel-patch: $*" >&2; exit 1; }

out=
if [ "${1:-}" = -o ]; then
	[ $# -ge 2 ] || die "-o needs a file name"
	out=$2
	shift 2
fi
[ $# = 1 ] || die "usage: $0 [-o FILE] LINUX (a linux-source tarball or a kernel tree)"
linux=$1
srpt=drivers/infiniband/ulp/srpt

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/old"
if [ -d "$linux" ]; then
	if [ ! -f "$linux/Makefile" ] || [ ! -d "$linux/$srpt" ]; then
		die "$linux: no kernel tree with $srpt"
	fi
	cp "$linux/Makefile" "$tmp/old/"
	mkdir -p "$tmp/old/$srpt"
	cp -r "$linux/$srpt/." "$tmp/old/$srpt/"
elif [ -f "$linux" ]; then
	# The tarball's top directory (linux-source-6.1/), from its first entry.
	dir=$(tar -tf "$linux" 2>/dev/null | head -n 1 | sed 's,/.*,,') || true
	[ -n "$dir" ] || die "$linux: not a tar archive"
	tar -xf "$linux" -C "$tmp/old" --strip-components=1 --wildcards \
		"$dir/Makefile" "$dir/$srpt/*" ||
		die "$linux: no $srpt in it"
else
	die "$linux: no such file or directory"
fi
kver=$(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p' "$tmp/old/Makefile" |
	paste -sd.)
kver=$kver$(sed -n 's/^EXTRAVERSION = *//p' "$tmp/old/Makefile")
[ -n "$kver" ] || die "$linux: no kernel version in its Makefile"

ver=$(make -s --no-print-directory -C "$top" version)
# shellcheck disable=SC2016 # a make rule
srcs=$(printf 'kernel-patch-src:\n\t@echo $(MODULE_SRC)\n' |
	make -s --no-print-directory -C "$top" -f Makefile -f - kernel-patch-src)
[ -n "$ver" ] || die "no version in ib_srpt.h"
[ -n "$srcs" ] || die "no module source list (MODULE_SRC) in the Makefile"
[ -n "$out" ] || out=$top/build/kernel-patch/ib_srpt-$ver-linux-$kver.patch

# The new directory: the module source, and the kbuild half of our Makefile
# (from its Kbuild line to the "else", blank lines at the end dropped; not
# the check of the kernel that precedes it, the tree is that kernel) under
# its SPDX line.
mkdir -p "$tmp/new/$srpt"
for f in $srcs; do
	[ "$f" = Makefile ] || cp "$top/$f" "$tmp/new/$srpt/"
done
{
	head -n 1 "$top/Makefile"
	awk '/^obj-\$\(CONFIG_INFINIBAND_SRPT\)/ { on = 1 }
		on && /^else$/ { exit }
		on && /^$/ { blank = blank "\n"; next }
		on { printf "%s%s\n", blank, $0; blank = "" }' "$top/Makefile"
} >"$tmp/new/$srpt/Makefile"
# shellcheck disable=SC2016 # a literal $(CONFIG_...)
grep -q '^obj-$(CONFIG_INFINIBAND_SRPT)' "$tmp/new/$srpt/Makefile" ||
	die "no Kbuild line in the kbuild half of the Makefile"

from=$(git -C "$top" describe --always --dirty 2>/dev/null || echo "$ver")
# Two trees in a scratch index, then the diff between them: new and deleted
# files as git writes them, no rename detection (patch -p1 reads it too).
export GIT_DIR="$tmp/git" GIT_INDEX_FILE="$tmp/git/index"
git init -q
tree_of() {
	rm -f "$GIT_INDEX_FILE"
	(cd "$tmp/$1" && GIT_WORK_TREE=. git add -f "$srpt" && git write-tree)
}
old=$(tree_of old)
new=$(tree_of new)
mkdir -p "$(dirname "$out")"
{
	echo "ib_srpt $ver for Linux $kver: replaces $srpt"
	echo
	echo "Made by \"make kernel-patch\" (tools/kernel-patch.sh) from ib_srpt $from"
	echo "against the $srpt of $(basename "$linux") (Linux $kver)."
	echo "At the top of that kernel tree: patch -p1 <FILE, or git apply FILE;"
	echo "then make M=$srpt builds ib_srpt.ko (CONFIG_INFINIBAND_SRPT=m)."
	echo "---"
	git diff --stat=72 --no-renames "$old" "$new"
	echo
	git diff --no-renames "$old" "$new"
} >"$out"
echo "$out"
