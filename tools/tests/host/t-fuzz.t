#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Smoke pass of the libFuzzer harnesses of the pure wire code (tools/fuzz/):
# the seed corpus in the tree is what tools/fuzz/mkseeds.py writes, and each
# harness builds (clang, ASan, UBSan), replays its seeds and its regression
# inputs (tools/fuzz/regressions/), then fuzzes from them for
# FUZZ_SMOKE_SECONDS (default 8).  Any crash or broken invariant fails.
# "make fuzz" runs the same harnesses for longer.
top=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$top" || exit 1
FUZZ_OUT=build/fuzz-smoke
export FUZZ_OUT
secs=${FUZZ_SMOKE_SECONDS:-8}
n=0

rm -rf "$FUZZ_OUT"
mkdir -p "$FUZZ_OUT"

# ok STATUS DESCRIPTION [LOG]: one TAP line; on failure the log's tail.
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && [ -f "$3" ] && tail -n 30 "$3" | sed 's/^/# /'
	fi
}

python3 tools/fuzz/mkseeds.py "$FUZZ_OUT/seeds" &&
	diff -r "$FUZZ_OUT/seeds" tools/fuzz/corpus >"$FUZZ_OUT/seeds.diff" 2>&1
ok $? "tools/fuzz/corpus is what mkseeds.py writes" "$FUZZ_OUT/seeds.diff"

for h in $(tools/fuzz/fuzz.sh list); do
	tools/fuzz/fuzz.sh build "$h" >"$FUZZ_OUT/$h.build.log" 2>&1
	status=$?
	ok $status "fuzz_$h builds" "$FUZZ_OUT/$h.build.log"
	if [ $status -ne 0 ]; then
		ok 1 "fuzz_$h replays its seeds and regressions (not built)"
		ok 1 "fuzz_$h fuzzes for $secs s (not built)"
		continue
	fi

	tools/fuzz/fuzz.sh replay "$h" >"$FUZZ_OUT/$h.out" 2>&1
	ok $? "$(tail -n 1 "$FUZZ_OUT/$h.out")" "$FUZZ_OUT/$h.replay.log"

	tools/fuzz/fuzz.sh run "$secs" "$h" >"$FUZZ_OUT/$h.out" 2>&1
	status=$?
	ok $status "$(tail -n 1 "$FUZZ_OUT/$h.out")" "$FUZZ_OUT/$h.log"
	if [ $status -ne 0 ]; then
		for f in "$FUZZ_OUT/crashes/$h"/*; do
			[ -f "$f" ] && echo "# crash input: $f (add it to tools/fuzz/regressions/$h/)"
		done
	fi
done
echo "1..$n"
