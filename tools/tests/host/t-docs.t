#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Documentation an administrator reads: every man page of the tree has its
# sections in man-pages(7) order and formats without a groff or man
# warning; Documentation/*.rst and README parse as reStructuredText
# without a docutils message; Documentation/ABI/testing/configfs-target-srpt
# has the kernel's ABI fields (What, one or more, Date, KernelVersion,
# Contact, Description) in every entry and a What: line for every configfs
# attribute the module shows, in each directory it shows it in (the
# attribute arrays of ib_srpt.c; an array whose directory this test does
# not know fails);
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
# abi_fields: every entry is What (one or more lines, as the kernel's ABI
# files allow), Date, KernelVersion, Contact, Description, in that order,
# each field non-empty.
abi_fields() {
	awk '
	/^[A-Za-z]+:/ {
		f = $1; sub(/:$/, "", f)
		if (f == "What" && prev == "What") next
		prev = f
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
# The directory of each attribute array of ib_srpt.c, under
# /sys/kernel/config/target/srpt, as the ABI file writes it.
abi_dirs="srpt_wwn_attrs=
srpt_da_attrs=/discovery_auth
srpt_tport_info_attrs=/<wwn>/info
srpt_tport_stat_attrs=/<wwn>/fabric_statistics/srpt
srpt_tpg_base_attrs=/<wwn>/<tpg>
srpt_tpg_attrib_attrs=/<wwn>/<tpg>/attrib
srpt_nacl_attrs=/<wwn>/<tpg>/acls/<initiator>
srpt_nacl_auth_attrs=/<wwn>/<tpg>/acls/<initiator>/auth
srpt_nacl_stat_attrs=/<wwn>/<tpg>/acls/<initiator>/fabric_statistics/srpt"
# abi_complete [ABI]: every attribute of every array (&PREFIX_attr_NAME
# in "static struct configfs_attribute *ARRAY[]") has a What: line with
# its array's directory and its NAME.
abi_complete() {
	printf '%s\n' "$abi_dirs" | awk '
	FILENAME == "-" { i = index($0, "="); dir[substr($0, 1, i - 1)] = substr($0, i + 1); next }
	FILENAME ~ /ib_srpt\.c$/ {
		if (match($0, /^static struct configfs_attribute \*[a-z_]+\[\]/)) {
			arr = $0; sub(/^static struct configfs_attribute \*/, "", arr); sub(/\[.*/, "", arr)
			narr++
			if (!(arr in dir)) { print "array " arr ": no directory in abi_dirs of t-docs"; bad = 1 }
			next
		}
		if (arr != "" && $0 ~ /^};/) { arr = ""; next }
		if (arr != "" && $1 ~ /^&[a-z_]+_attr_[a-z_]+,$/) {
			a = $1; sub(/^&.*_attr_/, "", a); sub(/,$/, "", a)
			want[n++] = "/sys/kernel/config/target/srpt" dir[arr] "/" a
		}
		next
	}
	/^What:/ { have[$2] = 1 }
	END {
		for (i = 0; i < n; i++)
			if (!(want[i] in have)) { print "no What: line for " want[i]; bad = 1 }
		print n " attributes in " narr " arrays"
		if (n == 0) bad = 1
		exit bad
	}' - ib_srpt.c "${1:-$abi}"
}
grep -v '^What:.*/acls/<initiator>/fabric_statistics/srpt/cmds_read$' "$abi" >"$tmp/abi.less"
fails "self-check: an ABI file without the ACL's cmds_read is refused" abi_complete "$tmp/abi.less"
check "$abi: a What: line for every configfs attribute of ib_srpt.c, in each of its directories" abi_complete

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
