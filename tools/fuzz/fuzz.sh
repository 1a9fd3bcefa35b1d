#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the libFuzzer harnesses of the pure wire code (behind
# "make fuzz" and tools/tests/host/t-fuzz.t).
#
#   tools/fuzz/fuzz.sh list
#   tools/fuzz/fuzz.sh build [HARNESS...]
#   tools/fuzz/fuzz.sh replay [HARNESS...]
#   tools/fuzz/fuzz.sh run SECONDS [HARNESS...]
#
# HARNESS is a name from "list" (login, cmd, ...); none means all of them.
# FUZZ_OUT (default build/fuzz) replaces build/fuzz below, FUZZ_CC (default
# clang) the compiler.  "build" compiles tools/fuzz/fuzz_HARNESS.c into
# build/fuzz/bin/ unless it is up to date; the others build first.  "replay"
# runs each harness once over every seed (tools/fuzz/corpus/HARNESS/) and
# every regression input (tools/fuzz/regressions/HARNESS/).  "run" fuzzes
# each harness for SECONDS starting from those, keeps the inputs that found
# new coverage in build/fuzz/corpus/HARNESS/, crashes in
# build/fuzz/crashes/HARNESS/ and libFuzzer's output in
# build/fuzz/HARNESS.log, and prints one summary line per harness.
#
# Exit status: 0 when every harness built and nothing crashed.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
out=${FUZZ_OUT:-build/fuzz}
CC=${FUZZ_CC:-clang}
ALL="login cmd tmf iu rsp mad names"

# Largest input libFuzzer makes up, per harness: a header and the IU.
max_len() {
	case $1 in
	cmd) echo 8448 ;;		# ib_srp's largest IU is 8260 bytes
	login) echo 160 ;;
	mad) echo 512 ;;
	rsp) echo 256 ;;
	names) echo 96 ;;
	*) echo 128 ;;
	esac
}

# Whether build/fuzz/bin/fuzz_$1 is newer than everything it is built from.
up_to_date() {
	[ -x "$out/bin/fuzz_$1" ] || return 1
	for f in "tools/fuzz/fuzz_$1.c" tools/fuzz/fuzz.h \
		 tools/include/srpt_kcompat.h srpt_wire.h srpt_iu.h srpt_mad.h; do
		# shellcheck disable=SC3013 # dash and bash have -nt
		[ "$f" -nt "$out/bin/fuzz_$1" ] && return 1
	done
	return 0
}

build_one() {
	up_to_date "$1" && return 0
	mkdir -p "$out/bin"
	$CC -std=gnu11 -Wall -Wextra -Werror -g -O1 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-Itools/include -o "$out/bin/fuzz_$1" "tools/fuzz/fuzz_$1.c" \
		2>"$out/fuzz_$1.cc.log"
	status=$?
	[ $status -eq 0 ] || cat "$out/fuzz_$1.cc.log" >&2
	return $status
}

# The seed and regression files of harness $1, one a line.
inputs() {
	for d in tools/fuzz/corpus/$1 tools/fuzz/regressions/$1; do
		[ -d "$d" ] && find "$d" -type f ! -name '.*' | sort
	done
}

replay_one() {
	# Without files, libFuzzer would fuzz instead of replaying.
	[ -n "$(inputs "$1")" ] || return 0
	# shellcheck disable=SC2046
	"$out/bin/fuzz_$1" -runs=1 $(inputs "$1") >"$out/$1.replay.log" 2>&1
}

run_one() {
	h=$1 secs=$2
	mkdir -p "$out/corpus/$h" "$out/crashes/$h"
	set -- "$out/corpus/$h" "tools/fuzz/corpus/$h"
	[ -d "tools/fuzz/regressions/$h" ] && set -- "$@" "tools/fuzz/regressions/$h"
	"$out/bin/fuzz_$h" -max_total_time="$secs" -max_len="$(max_len "$h")" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/crashes/$h/" "$@" >"$out/$h.log" 2>&1
	status=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$h.log")
	cov=$(sed -n 's/^#[0-9]*[	 ]*DONE *cov: \([0-9]*\).*/\1/p' "$out/$h.log" | tail -n 1)
	corp=$(find "$out/corpus/$h" -type f | wc -l)
	crashes=$(find "$out/crashes/$h" -type f | wc -l)
	echo "fuzz_$h: ${execs:-?} execs in $secs s, cov ${cov:-?}, $corp inputs in $out/corpus/$h, $crashes in $out/crashes/$h, exit $status"
	return $status
}

cmd=${1:-}
[ $# -gt 0 ] && shift
rc=0
case $cmd in
list)
	echo "$ALL"
	;;
build|replay)
	# shellcheck disable=SC2048 # harness names, one word each
	for h in ${*:-$ALL}; do
		build_one "$h" || { echo "fuzz_$h: build failed"; rc=1; continue; }
		if [ "$cmd" = replay ]; then
			if replay_one "$h"; then
				echo "fuzz_$h: $(inputs "$h" | wc -l) inputs replayed"
			else
				echo "fuzz_$h: replay failed, see $out/$h.replay.log"
				rc=1
			fi
		fi
	done
	;;
run)
	secs=${1:-60}
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2048 # harness names, one word each
	for h in ${*:-$ALL}; do
		build_one "$h" || { echo "fuzz_$h: build failed"; rc=1; continue; }
		run_one "$h" "$secs" || rc=1
	done
	;;
*)
	echo "usage: $0 list | build [HARNESS...] | replay [HARNESS...] | run SECONDS [HARNESS...]" >&2
	exit 2
	;;
esac
exit $rc
