#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The fault sweep's kernel-free parts (tools/tests/faults/sweep.sh) and its
# agreement with the driver: site masks, call counts, the calls failed, the
# kernel log as check-dmesg.sh reads it, the verdict of one injection; the
# driver's enum srpt_fault_site and its names table list the same sites,
# each used by a srpt_fail() call, and every site and path the sweep names
# exists.  The sweep itself runs in a VM on the debug kernel (make
# check-faults).
# shellcheck disable=SC2016 # sh -c scripts expand their own arguments
# shellcheck source=tools/tests/host/tap.sh
. "$(dirname "$0")/tap.sh"
# shellcheck source=tools/tests/faults/sweep.sh
. tools/tests/faults/sweep.sh
sweep=tools/tests/faults/t-sweep.t

# is_out NAME WANT CMD...: CMD prints exactly WANT.
is_out() {
	_name=$1 _want=$2
	shift 2
	check "$_name" sh -c '[ "$1" = "$2" ] || { printf "got:\n%s\nexpected:\n%s\n" "$1" "$2"; exit 1; }' \
		- "$("$@" 2>&1)" "$_want"
}

is_out "mask of site 0" 0x1 sw_mask 0
is_out "mask of site 3" 0x8 sw_mask 3
is_out "mask of site 4" 0x10 sw_mask 4
is_out "mask of site 57" 0x200000000000000 sw_mask 57
is_out "mask of site 63 (unsigned)" 0x8000000000000000 sw_mask 63

printf '0 imm_copy 0\n1 data_buf 5\n13 ch 2\n' >"$tmp/c0"
printf '0 imm_copy 0\n1 data_buf 9\n13 ch 3\n19 cq 0\n' >"$tmp/c1"
: >"$tmp/empty"
is_out "delta: the sites called between two readings, with their calls" \
	"1 data_buf 4
13 ch 1" sw_delta "$tmp/c0" "$tmp/c1"
is_out "delta from an empty reading (module not loaded): every call" \
	"1 data_buf 5
13 ch 2" sw_delta "$tmp/empty" "$tmp/c0"

is_out "calls: every one without a cap" "1 2 3" sh -c '. tools/tests/faults/sweep.sh; sw_calls 3 0 | tr "\n" " " | sed "s/ $//"'
is_out "calls: every one up to the cap" "1 2 3" sh -c '. tools/tests/faults/sweep.sh; sw_calls 3 4 | tr "\n" " " | sed "s/ $//"'
is_out "calls: above the cap, the first cap-1 and the last" "1 2 3 128" sh -c '. tools/tests/faults/sweep.sh; sw_calls 128 4 | tr "\n" " " | sed "s/ $//"'
is_out "calls: cap 1, the last only" "128" sw_calls 128 1

printf '6,1234,5000123,-;ib_srpt: fault injected at cq (call 7 since load)\n SUBSYSTEM=x\n' >"$tmp/kmsg"
is_out "kmsg records in dmesg form" "[    5.000123] ib_srpt: fault injected at cq (call 7 since load)
 SUBSYSTEM=x" sw_kmsg_form <"$tmp/kmsg"
printf '4,1300,6000000,-;WARNING: CPU: 0 PID: 1 at ib_srpt.c:1 srpt_x+0x1/0x2 [ib_srpt]\n' >"$tmp/kmsg"
sw_kmsg_form <"$tmp/kmsg" >"$tmp/log"
fails "a WARN in kmsg records is a splat once in dmesg form" tools/vm/check-dmesg.sh "$tmp/log"

# The verdict of one injection.
inj="[    5.000000] ib_srpt: fault injected at session (call 3 since load)"
printf '%s\n' "$inj" >"$tmp/log.inj"
printf '%s\n%s\n' "$inj" "[    5.100000] ib_srpt: login-x: creating the session failed (-12)" >"$tmp/log.line"
printf 'sh: write error: Cannot allocate memory\n' >"$tmp/out.err"
: >"$tmp/out.none"
verdict_is() {
	_vn=$1 _vs=$2
	shift 2
	check "verdict: $_vn (status $_vs)" sh -c '. tools/tests/faults/sweep.sh; sw_verdict "$@" >/dev/null; [ $? = '"$_vs"' ]' - "$@"
}
verdict_is "not reached" 2 session 1 "$tmp/out.err" "$tmp/empty" 0 1
verdict_is "the injection of another site is not this one's" 2 ch 1 "$tmp/out.err" "$tmp/log.inj" 0 1
verdict_is "completed" 0 session 0 "$tmp/out.none" "$tmp/log.inj" 0 0
verdict_is "failed with an error message" 0 session 1 "$tmp/out.err" "$tmp/log.inj" 0 0
verdict_is "failed with an ib_srpt log line" 0 session 1 "$tmp/out.none" "$tmp/log.line" 0 0
verdict_is "failed with the refusal counted" 0 session 1 "$tmp/out.none" "$tmp/log.inj" 3 4
verdict_is "failed silently" 1 session 1 "$tmp/out.none" "$tmp/log.inj" 3 3
verdict_is "failed silently, refusals unknown" 1 session 1 "$tmp/out.none" "$tmp/log.inj" "" ""

# The driver's sites: enum entries (less _NR), names, srpt_fail() uses.
sed -n '/^enum srpt_fault_site {/,/^};/p' ib_srpt.c | grep -o 'SRPT_FAULT_[A-Z_0-9]*' |
	grep -v '^SRPT_FAULT_NR$' >"$tmp/enum"
sed -n '/^static const char \* const srpt_fault_names/,/^};/p' ib_srpt.c |
	sed -n 's/^[[:space:]]*\[\(SRPT_FAULT_[A-Z_0-9]*\)\][[:space:]]*= "\([a-z_0-9]*\)",$/\1 \2/p' >"$tmp/names"
check "the driver has fault sites (enum srpt_fault_site)" test -s "$tmp/enum"
check "at most 64 sites (fail_sites is a u64)" test "$(wc -l <"$tmp/enum")" -le 64
check "every site has a name, in enum order" sh -c 'cut -d" " -f1 "$1" | diff "$2" -' - "$tmp/names" "$tmp/enum"
check "site names are unique" sh -c '[ -z "$(cut -d" " -f2 "$1" | sort | uniq -d)" ]' - "$tmp/names"
check "every site is used by a srpt_fail() call" sh -c '
	while read -r e; do grep -q "srpt_fail($e)" ib_srpt.c || { echo "unused: $e"; exit 1; }; done <"$1"' - "$tmp/enum"
# srp-hostile arms the first four sites by number.
check "sites 0..3 are the ones srp-hostile arms by number" sh -c \
	'[ "$(head -n 4 "$1" | cut -d" " -f2 | tr "\n" " ")" = "imm_copy data_buf rw_ctx table " ]' - "$tmp/names"

# Documentation/srpt.rst's table of sites ("N name ..." lines of the
# second ==== rule pair of its Fault injection table) is the driver's.
awk '/^Fault injection$/ { f = 1 } f && /^=== ================ / { t++ }
	f && t == 2 && /^ ?[0-9]+  [a-z_]/ { print $1, $2 }' Documentation/srpt.rst >"$tmp/doc"
nl -v0 -w1 -s' ' "$tmp/names" | awk '{ print $1, $3 }' >"$tmp/num"
check "Documentation/srpt.rst lists every site with its number" diff "$tmp/num" "$tmp/doc"

# The sweep names only sites and paths that exist.
sample=$(sed -n 's/^[[:space:]]*sites=\${SRPT_FAULTS_SITES:-\(.*\)}$/\1/p' "$sweep")
check "the sweep's sample names sites" test -n "$sample"
check "every site of the sample exists in the driver" sh -c '
	for s in $2; do grep -q " $s\$" "$1" || { echo "no site $s"; exit 1; }; done' - "$tmp/names" "$sample"
paths=$(sed -n 's/^all_paths="\(.*\)"$/\1/p' "$sweep")
check "the sweep lists paths" test -n "$paths"
check "every path has its pre, run and post steps" sh -c '
	for p in $2; do for s in pre run post; do
		grep -q "^p_${p}_$s() " "$1" || { echo "no p_${p}_$s"; exit 1; }
	done; done' - "$sweep" "$paths"

# The sweep's loop (sw_path, sw_inject, sw_summary) on stand-in paths whose
# "sites" are shell functions: calls counted in a file, the armed one made
# to fail as the driver's srpt_fail() does (its Kth call after arming,
# once), the kernel log a file of /dev/kmsg records.
cat >"$tmp/mock.sh" <<'MOCK'
. "$SRPT_REPO/tools/vm/lib.sh"
. "$SRPT_REPO/tools/tests/faults/sweep.sh"
sw_tmp=$MOCK_TMP
: >"$sw_tmp/kmsg"
printf '0 a 0\n1 b 0\n2 c 0\n' >"$sw_tmp/counts"
cp "$sw_tmp/counts" "$sw_tmp/sw.allsites"
kmsg_sync() { :; }
kmsg_text() { cat "$sw_tmp/kmsg"; }
klog() { echo "6,1,5000000,-;$*" >>"$sw_tmp/kmsg"; }
sw_mark() {
	_mk="srpt-faults: mark $(cat /proc/sys/kernel/random/uuid)"
	klog "$_mk"
	echo "$_mk"
}
sw_arm() { echo "$1 $2 0" >"$sw_tmp/armed"; }
sw_disarm() { rm -f "$sw_tmp/armed"; }
sw_counts() { cp "$sw_tmp/counts" "$1"; }
sw_refused() { :; }
sw_settle() { :; }
sw_channels_clean() { :; }
sw_kmemleak() { ok "$1: kmemleak clean"; }
sw_unload() { :; }
# call IDX NAME: one call of a site; status 1 when it is made to fail.
call() {
	awk -v s="$2" '$2 == s { $3++ } { print }' "$sw_tmp/counts" >"$sw_tmp/counts.new"
	mv "$sw_tmp/counts.new" "$sw_tmp/counts"
	[ -f "$sw_tmp/armed" ] || return 0
	read -r _ai _ak _an <"$sw_tmp/armed"
	[ "$_ai" = "$1" ] || return 0
	_an=$((_an + 1))
	echo "$_ai $_ak $_an" >"$sw_tmp/armed"
	[ "$_an" = "$_ak" ] || return 0
	klog "ib_srpt: fault injected at $2 (call $_an since load)"
	return 1
}
# good: two calls of a, one of b; a failure is reported.
p_good_pre() { :; }
p_good_run() { call 0 a && call 0 a && call 1 b || { echo "good: refused" >&2; return 1; }; }
p_good_post() { :; }
# silent: fails without a word; splat: a WARN on failure; hang: never ends
# on failure; undo: its undoing fails after a failure.
p_silent_pre() { :; }
p_silent_run() { call 0 a; }
p_silent_post() { :; }
p_splat_pre() { :; }
p_splat_run() {
	call 0 a && return 0
	klog "WARNING: CPU: 0 PID: 1 at ib_srpt.c:1 srpt_x+0x1/0x2"
	echo "splat: refused" >&2
	return 1
}
p_splat_post() { :; }
p_hang_pre() { :; }
p_hang_run() { call 0 a || sleep 8; }
p_hang_post() { :; }
p_undo_pre() { :; }
p_undo_run() { call 0 a || { echo undo: refused >&2; touch "$sw_tmp/broken"; return 1; }; }
p_undo_post() { [ ! -f "$sw_tmp/broken" ] || { rm -f "$sw_tmp/broken"; return 1; }; }
# witness: its failure ends the other session.
sw_witness_ok() {
	[ -f "$sw_tmp/ended" ] || return 0
	rm -f "$sw_tmp/ended"
	echo "the other session ended"
	return 1
}
sw_witness_start() { echo "start $1" >>"$sw_tmp/w"; }
sw_witness_stop() { echo stop >>"$sw_tmp/w"; }
# expect: fails with a report, but not the one sw_expect wants.
p_expect_pre() { :; }
p_expect_run() { call 0 a || { echo "expect: refused, no reason" >&2; return 1; }; }
p_expect_post() { :; }
sw_expect() {
	[ "$1" = expect ] || return 0
	grep -q "reason 7" "$4" && return 0
	echo "no reason 7 given"
	return 1
}
# broken: does not run even without an injection.
p_broken_pre() { :; }
p_broken_run() { echo broken: never works >&2; return 1; }
p_broken_post() { :; }
p_witness_pre() { :; }
p_witness_run() { call 0 a || { touch "$sw_tmp/ended"; echo witness: refused >&2; return 1; }; }
p_witness_post() { :; }
# load: as the driver's load path, its injection is fail_at (sw_fail_at),
# for the injected run alone; a load with it set fails.
p_load_pre() { :; }
p_load_run() {
	case ${sw_fail_at:-} in
	'') call 0 a ;;
	a:*)
		klog "ib_srpt: fault injected at a (call 1 since load)"
		echo "insmod: Cannot allocate memory" >&2
		return 1
		;;
	esac
}
p_load_post() { :; }
# vary: calls a twice in its first (clean) run, once in every later one.
p_vary_pre() { :; }
p_vary_run() {
	if [ -f "$sw_tmp/vary" ]; then
		call 0 a || { echo "vary: refused" >&2; return 1; }
	else
		touch "$sw_tmp/vary"
		call 0 a && call 0 a
	fi
}
p_vary_post() { :; }
# good2: calls a and c (cover mode: only c is failed after good).
p_good2_pre() { :; }
p_good2_run() { call 0 a && call 2 c || { echo "good2: refused" >&2; return 1; }; }
p_good2_post() { :; }
run_tmo=3 step_tmo=3 max_n=${MOCK_MAX_N:-0} cover=${MOCK_COVER:-0}
sw_init
for p in $MOCK_PATHS; do
	sw_path "$p"
	[ $? != 2 ] || break
done
sw_summary 3
MOCK
# mock PATHS: the stand-in sweep over PATHS; its TAP in $tmp/mock.out.
mock() {
	mkdir -p "$tmp/m" && rm -rf "$tmp/m"/* &&
		MOCK_TMP=$tmp/m MOCK_PATHS=$1 SRPT_REPO=$top SRPT_KMSG="" SRPT_FAULTS_UNREACHED=${2-c} \
		MOCK_COVER=${MOCK_COVER:-0} MOCK_MAX_N=${MOCK_MAX_N:-0} \
		sh "$tmp/mock.sh" >"$tmp/mock.out" 2>&1
	cat "$tmp/mock.out"
}
has() { grep -qxF -- "$2" "$1" || { echo "no line: $2"; cat "$1"; return 1; }; }
mock good >/dev/null
check "loop: the clean run counts the sites a path calls" has "$tmp/mock.out" "ok 1 - good: runs clean, 2 site(s) to fail: a x2, b x1"
check "loop: each call of each site is failed in turn" sh -c '
	grep -c "^ok [0-9]* - good: \(a call [12] of 2\|b call 1 of 1\): the path failed: good: refused$" "$1" | grep -qx 3' - "$tmp/mock.out"
check "loop: the path runs clean again after each site" has "$tmp/mock.out" "ok 5 - good: runs clean again after the injections at a"
check "loop: the summary counts injections and survivors" has "$tmp/mock.out" "# fault sweep: 1 path(s), 2 site(s) of 3 failed, 3 injection(s), 3 fired, 0 not reached, 3 survived"
check "loop: every injection survived" sh -c 'grep -q "^ok [0-9]* - every injection survived (3 of 3)$" "$1"' - "$tmp/mock.out"
check "loop: a site no path reached, known to be, is a TODO" sh -c 'grep -q "^not ok [0-9]* - every site was failed on some path # TODO reached by other tests, not by the sweep.s paths: c$" "$1"' - "$tmp/mock.out"
check "loop: the plan counts every check" sh -c 'tail -n 1 "$1" | grep -qx "1..11"' - "$tmp/mock.out"
mock good "" >/dev/null
check "loop: a site no path reached, not known to be, is not ok" sh -c 'grep -q "^not ok [0-9]* - every site was failed on some path (reached by no path: c)$" "$1"' - "$tmp/mock.out"
mock silent >/dev/null
check "loop: a silent failure is not ok" sh -c 'grep -q "^not ok [0-9]* - silent: a call 1 of 1: the path failed without an error message" "$1" &&
	grep -q "^not ok [0-9]* - every injection survived (0 of 1)$" "$1"' - "$tmp/mock.out"
mock splat >/dev/null
check "loop: a kernel splat is not ok" sh -c 'grep -q "^not ok [0-9]* - splat: a call 1 of 1: kernel splat" "$1"' - "$tmp/mock.out"
mock undo >/dev/null
check "loop: an undo that fails is not ok" sh -c 'grep -q "^not ok [0-9]* - undo: a call 1 of 1: undoing it failed" "$1"' - "$tmp/mock.out"
mock witness >/dev/null
check "loop: another session ended by an injection is not ok" sh -c 'grep -q "^not ok [0-9]* - witness: a call 1 of 1: the other session ended" "$1"' - "$tmp/mock.out"
mock expect >/dev/null
check "loop: an outcome other than sw_expect wants is not ok" sh -c 'grep -q "^not ok [0-9]* - expect: a call 1 of 1: no reason 7 given (the path failed: expect: refused, no reason)$" "$1"' - "$tmp/mock.out"
mock "broken good" >/dev/null
check "loop: a path that fails clean is not ok, the next path still runs" sh -c '
	grep -q "^not ok 1 - broken: runs clean without an injection (status 1)$" "$1" &&
	grep -q "^ok [0-9]* - good: ib_srpt unloads after the injections$" "$1"' - "$tmp/mock.out"
check "loop: the other session is stopped after each path, failed or not" sh -c '
	[ "$(tr "\n" " " <"$1")" = "start broken stop start good stop " ]' - "$tmp/m/w"
mock load >/dev/null
check "loop: the load path's fail_at is for the injected run alone" sh -c '
	grep -q "^ok [0-9]* - load: a call 1 of 1: the path failed: insmod: Cannot allocate memory$" "$1" &&
	grep -q "^ok [0-9]* - load: runs clean again after the injections at a$" "$1"' - "$tmp/mock.out"
MOCK_COVER=1 MOCK_MAX_N=1 mock vary >/dev/null
check "loop, cover: the first call when the last did not come" sh -c '
	grep -q "^ok [0-9]* - vary: a call 2 of 2 # SKIP not reached" "$1" &&
	grep -q "^ok [0-9]* - vary: a call 1 of 2: the path failed: vary: refused$" "$1"' - "$tmp/mock.out"
MOCK_COVER=1 MOCK_MAX_N=1 mock "good good2" "" >/dev/null
check "loop, cover: each site once, its last call, on the first path that calls it" sh -c '
	[ "$(grep -c "^ok [0-9]* - good: \(a call 2 of 2\|b call 1 of 1\): " "$1")" = 2 ] &&
	grep -q "^ok [0-9]* - good2: runs clean, 1 site(s) to fail: c x1$" "$1" &&
	grep -q "^ok [0-9]* - good2: c call 1 of 1: the path failed: good2: refused$" "$1" &&
	grep -q "^ok [0-9]* - every site was failed on some path$" "$1" &&
	grep -q "^# fault sweep: 2 path(s), 3 site(s) of 3 failed, 3 injection(s), 3 fired, 0 not reached, 3 survived$" "$1"' - "$tmp/mock.out"
mock "hang good" >/dev/null
check "loop: a hang ends the sweep" sh -c 'grep -q "^not ok [0-9]* - hang: a call 1 of 1: the path hangs (still running after 3 s); the sweep ends here$" "$1" &&
	! grep -q " - good: " "$1"' - "$tmp/mock.out"
echo "1..$n"
