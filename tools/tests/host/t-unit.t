#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Userspace unit tests of the pure wire code: every tools/tests/unit/test_*.c
# is built with ASan and UBSan and run; its TAP lines are renumbered into
# this test's plan.
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
out=build/unit
mkdir -p "$out"
n=0
CC=${CC:-gcc}
for src in tools/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	n=$((n + 1))
	if ! $CC -std=gnu11 -Wall -Wextra -Werror -g -O1 \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-Itools/include -o "$out/$name" "$src" 2>"$out/$name.cc.log"; then
		echo "not ok $n - $name builds"
		sed 's/^/# /' "$out/$name.cc.log"
		continue
	fi
	echo "ok $n - $name builds"
	"$out/$name" >"$out/$name.tap" 2>&1
	status=$?
	while IFS= read -r line; do
		case $line in
		"ok "*|"not ok "*)
			n=$((n + 1))
			desc=${line#* - }
			case $line in
			ok*) echo "ok $n - $name: $desc" ;;
			*) echo "not ok $n - $name: $desc" ;;
			esac
			;;
		1..*) ;;
		*) echo "# $line" ;;
		esac
	done <"$out/$name.tap"
	n=$((n + 1))
	if [ $status -eq 0 ]; then
		echo "ok $n - $name exits 0"
	else
		echo "not ok $n - $name exits 0 (status $status)"
	fi
done
echo "1..$n"
