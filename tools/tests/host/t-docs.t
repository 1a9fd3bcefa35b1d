#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Documentation an administrator reads: every man page of the tree has its
# sections in man-pages(7) order and formats without a groff or man
# warning; Documentation/*.rst and README parse as reStructuredText
# without a docutils message; Documentation/ABI/testing/configfs-target-srpt
# has the kernel's ABI fields (What, Date, KernelVersion, Contact,
# Description) in every entry and an entry for every configfs attribute
# the module defines (CONFIGFS_ATTR and CONFIGFS_ATTR_RO in ib_srpt.c);
# make man writes a section-9 page per kernel-doc comment, and
# srpt_init_ch_qp(9) has NAME, SYNOPSIS, ARGUMENTS and DESCRIPTION.
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"

# man_order PAGE: its .SH headings are in the order man-pages(7) lists
# (headings it does not list may come anywhere).
man_order() {
	grep '^\.SH ' "$1" | sed 's/^\.SH *//; s/"//g' | awk '
	BEGIN {
		n = split("NAME|LIBRARY|SYNOPSIS|CONFIGURATION|DESCRIPTION|OPTIONS|EXIT STATUS|RETURN VALUE|ERRORS|ENVIRONMENT|FILES|VERSIONS|ATTRIBUTES|STANDARDS|NOTES|CAVEATS|BUGS|EXAMPLES|AUTHORS|REPORTING BUGS|COPYRIGHT|SEE ALSO", o, "|")
		for (i = 1; i <= n; i++) rank[o[i]] = i
	}
	{ print }
	($0 in rank) {
		if (rank[$0] < last) { print "out of order: " $0 " after " lastname; bad = 1 }
		last = rank[$0]; lastname = $0
	}
	NR == 1 && $0 != "NAME" { print "first section is not NAME"; bad = 1 }
	END { exit bad }'
}
# man_clean PAGE: man formats it without warnings (groff -ww, man's own).
man_clean() {
	LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l -Tutf8 -Z "$1" 2>&1 >/dev/null | tee /dev/stderr | grep -q . && return 1
	return 0
}
pages=$(find . -path ./build -prune -o -path ./debian -prune -o -type f -name '*.[1-8]' -print | sed 's,^\./,,' | sort)
for p in $pages; do
	check "man page $p: sections in man-pages(7) order" man_order "$p"
	check "man page $p: formats without warnings" man_clean "$p"
done

# rst_clean FILE: docutils parses it with no message at level info or above.
rst_clean() {
	/usr/bin/python3 - "$1" <<'PY'
import io, sys
import docutils.core
err = io.StringIO()
docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
                              settings_overrides={"warning_stream": err, "report_level": 1})
sys.stdout.write(err.getvalue())
sys.exit(1 if err.getvalue() else 0)
PY
}
for f in README Documentation/*.rst; do
	[ -f "$f" ] && check "$f parses as reStructuredText without messages" rst_clean "$f"
done

abi=Documentation/ABI/testing/configfs-target-srpt
# abi_fields: every entry is What, Date, KernelVersion, Contact,
# Description, in that order, each field non-empty.
abi_fields() {
	awk '
	/^[A-Za-z]+:/ {
		f = $1; sub(/:$/, "", f)
		if (f == "What") { if (seen && want != 6) { print "incomplete entry before line " NR; bad = 1 } want = 1; seen = 1 }
		split("What Date KernelVersion Contact Description", o, " ")
		if (o[want] != f) { print "line " NR ": " f " where " o[want] " belongs"; bad = 1 }
		v = $0; sub(/^[A-Za-z]+:[ \t]*/, "", v)
		if (f != "Description" && v == "") { print "line " NR ": empty " f; bad = 1 }
		want++
	}
	END { if (want != 6) { print "last entry incomplete"; bad = 1 } exit bad }' "$abi"
}
check "$abi: What, Date, KernelVersion, Contact, Description in every entry" abi_fields
# abi_complete: each attribute ib_srpt.c defines has a What: line.
abi_complete() {
	_miss=
	_attrs=$(sed -n 's/^CONFIGFS_ATTR\(_RO\|_WO\)\?([a-z_]*, *\([a-z_]*\));.*/\2/p' ib_srpt.c)
	# shellcheck disable=SC2086 # one line of names
	echo "attributes:" $_attrs
	[ -n "$_attrs" ] || return 1
	for a in $_attrs; do
		grep -q "^What:.*/$a\$" "$abi" || _miss="$_miss $a"
	done
	[ -z "$_miss" ] || { echo "no ABI entry for:$_miss"; return 1; }
}
check "$abi: an entry for every configfs attribute of ib_srpt.c" abi_complete

# The kernel API manual (make man): kernel-doc's section-9 pages, one per
# documented function, structure or enum.
# man9_sections PAGE: NAME, SYNOPSIS, ARGUMENTS and DESCRIPTION, in that
# order, each with text under it.
man9_sections() {
	awk '
	BEGIN {
		n = split("NAME SYNOPSIS ARGUMENTS DESCRIPTION", want, " ")
		for (i = 1; i <= n; i++) rank[want[i]] = i
	}
	/^\.SH / {
		cur = $0; sub(/^\.SH */, "", cur); gsub(/"/, "", cur)
		if (cur in rank) {
			if (rank[cur] != last + 1) { print "sections out of order: " cur; bad = 1 }
			last = rank[cur]
		}
		next
	}
	cur != "" && NF { body[cur] = 1 }
	END {
		for (i = 1; i <= n; i++)
			if (!body[want[i]]) { print "no " want[i] " section with text"; bad = 1 }
		exit bad
	}' "$1"
}
printf '.TH "x" 9\n.SH NAME\nx \\- y\n.SH SYNOPSIS\n.B int x\n.SH "DESCRIPTION"\ntext\n' >"$tmp/noargs.9"
fails "self-check: a page without ARGUMENTS is refused" man9_sections "$tmp/noargs.9"
check "make man: kernel-doc writes the pages (tools/kernel-doc.sh --man)" \
	tools/kernel-doc.sh --man "$tmp/man9"
check "srpt_init_ch_qp(9) has NAME, SYNOPSIS, ARGUMENTS and DESCRIPTION" \
	man9_sections "$tmp/man9/srpt_init_ch_qp.9"
# man9_count: a page for every kernel-doc comment of the sources.
man9_count() {
	# shellcheck disable=SC2046 # a list of file names
	_c=$(awk '/^[[:space:]]*\/\*\*[[:space:]]*$/ { n++ } END { print n + 0 }' \
		$(tools/kernel-doc.sh --sources))
	_p=$(find "$tmp/man9" -name '*.9' | wc -l)
	echo "$_c kernel-doc comments, $_p pages"
	[ "$_c" -gt 0 ] && [ "$_c" = "$_p" ]
}
check "a section-9 page for every kernel-doc comment" man9_count
# man9_clean: man formats every page without a warning.
man9_clean() {
	for _p in "$tmp"/man9/*.9; do man_clean "$_p" || { echo "$_p"; return 1; }; done
}
check "every section-9 page formats without warnings" man9_clean
echo "1..$n"
