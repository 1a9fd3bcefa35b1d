#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In-tree for real (issue 25): "make kernel-patch" writes the patch that
# replaces drivers/infiniband/ulp/srpt of a kernel's own source with this
# driver.  For each Debian kernel series whose source is there (the host's
# linux-source-X.Y; tools/kernels.sh source SERIES for the others), the
# patch made against that kernel applies without fuzz (patch -p1, and git
# apply agrees), "make M=drivers/infiniband/ulp/srpt" with Debian's config
# builds ib_srpt.ko there without a warning, the Makefile's feature tests
# (srpt_compat.h) found what that tree has, and the module is this driver
# with the vermagic of the kernel's own ib_srpt.ko, and the kernel's own
# kernel-doc finds nothing to say about the driver's comments.  A series
# whose source is missing is skipped, with the command that fetches it.
#
# tools/intree.sh keeps the prepared trees (unpacked, Debian's config,
# modules_prepare) in /var/cache/ib_srpt/intree: the first run for a kernel
# takes a minute or two, later ones seconds.  The times are printed.
TAP_DIAG_TAIL=1
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"

ver=$(make -s version)
srpt=drivers/infiniband/ulp/srpt

# The default: against the linux-source of the kernel "make" builds for.
check "make kernel-patch writes the patch against the host's linux-source" \
	sh -c "make -s kernel-patch >$tmp/default && test -s \"\$(cat $tmp/default)\""
default=$(cat "$tmp/default" 2>/dev/null || true)

# info KEY: from tools/intree.sh info.
info() { sed -n "s/^$1=//p" "$tmp/info"; }
# vermagic KO: the module's vermagic.
vermagic() { /sbin/modinfo -F vermagic "$1"; }
# features TREE: -DSRPT_HAVE_NAME for each srpt_have test of the Makefile
# (ccflags-y += $(call srpt_have,HEADER,SYMBOL,NAME)) whose SYMBOL is in
# TREE's include/HEADER, sorted.
features() {
	# shellcheck disable=SC2016 # a literal $(call ...)
	sed -n 's/^ccflags-y += $(call srpt_have,\([^,]*\),\([^,]*\),\([^)]*\))$/\1 \2 \3/p' Makefile |
		while read -r _h _sym _name; do
			! grep -qsw "$_sym" "$1/include/$_h" || echo "-DSRPT_HAVE_$_name"
		done | sort
}
# same_diff A B: the two patches change the same (their headers name where
# they were made from).
same_diff() {
	sed -n '/^diff --git/,$p' "$1" >"$tmp/diff.a"
	sed -n '/^diff --git/,$p' "$2" >"$tmp/diff.b"
	[ -s "$tmp/diff.a" ] && cmp "$tmp/diff.a" "$tmp/diff.b"
}

for s in host bpo-6.12 trixie-6.12 trixie-bpo; do
	if ! why=$(tools/intree.sh available "$s"); then
		n=$((n + 1))
		echo "ok $n - $s # SKIP $why"
		continue
	fi
	tools/intree.sh info "$s" >"$tmp/info"
	rel=$(info rel)
	modules=$(info modules)
	cache=$(info root)$(info icache)
	t0=$(date +%s)
	check "$s ($rel): its linux-source unpacked, Debian's config, modules_prepare (cached)" \
		sh -c "tools/intree.sh prepare $s >$tmp/tree"
	t1=$(date +%s)
	tree=$(tail -n 1 "$tmp/tree")/linux
	patch=$tmp/$s.patch
	check "$s: make kernel-patch LINUX=its tree" \
		sh -c "tools/kernel-patch.sh -o $patch $tree >/dev/null && grep -q '^+++ b/$srpt/srpt_compat.h' $patch"
	if [ "$s" = host ] && [ -n "$default" ]; then
		check "$s: the patch from the tarball is the one from its tree" \
			same_diff "$default" "$patch"
	fi
	check "$s: git apply --check accepts the patch in the kernel's tree" \
		sh -c "cd $tree && git apply --check $patch"
	check "$s: the patch applies without fuzz and make M=$srpt builds ib_srpt.ko" \
		tools/intree.sh build "$s" "$patch"
	t2=$(date +%s)
	out=build/intree/$rel
	ko=$out/ib_srpt.ko
	log=$out/build.log
	check "$s: no compiler or modpost warning" \
		sh -c "[ -f $log ] && ! grep -E 'warning:|error:|WARNING:' $log"
	found=$(features "$tree" | xargs)
	check "$s: the feature tests of the Makefile read the kernel tree: ${found:-none there}" \
		sh -c "[ -f $out/ib_srpt.o.cmd ] && [ \"\$(grep -o -- '-DSRPT_HAVE_[A-Z_]*' $out/ib_srpt.o.cmd | sort -u | xargs)\" = '$found' ]"
	check "$s: ib_srpt.ko is this driver ($ver)" \
		sh -c "[ \"\$(/sbin/modinfo -F version $ko)\" = '$ver' ]"
	own=$(find "$modules/kernel/$srpt" -name 'ib_srpt.ko*' 2>/dev/null | head -n 1)
	check "$s: vermagic is that of $rel's own ib_srpt.ko ($(vermagic "$own" 2>/dev/null))" \
		sh -c "[ -n '$own' ] && [ \"\$(/sbin/modinfo -F vermagic $ko)\" = \"\$(/sbin/modinfo -F vermagic $own)\" ]"
	# The tree's own kernel-doc (Perl on 6.1 and 6.12, Python on 7.x)
	# over the driver's sources, as its "make W=2" runs it (-Wall where
	# that passes it: missing Return: sections too); 7.x's M= builds skip it.
	kdoc_flags=-none
	! grep -q -- '-Wall' "$tree/scripts/Makefile.build" || kdoc_flags="-none -Wall"
	# shellcheck disable=SC2086 # lists of options and file names
	check "$s: its own kernel-doc $kdoc_flags finds nothing in the driver's sources" \
		sh -c "out=\$($tree/scripts/kernel-doc $kdoc_flags $(tools/kernel-doc.sh --sources) 2>&1) && [ -z \"\$out\" ] || { echo \"\$out\"; exit 1; }"
	echo "# $s ($rel): prepare $((t1 - t0)) s ($(cat "$cache/$rel/times" 2>/dev/null || echo '?') when made), patch and build $((t2 - t1)) s"
done
echo "1..$n"
