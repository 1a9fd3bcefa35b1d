# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by the fault sweep (tools/tests/faults/t-sweep.t, in the guest)
# and by its host test (tools/tests/host/t-faults.t): the parts of the
# sweep that need no kernel, so that they are tested where no VM runs
# (with tools/vm/lib.sh's TAP helpers and srp.sh's kmsg_sync and kmsg_text,
# or stand-ins for them).

# sw_mask IDX: the fail_sites mask of site IDX (0..63), in hex; bit 63
# too, which shell arithmetic cannot print unsigned.
sw_mask() {
	_m=$(printf '%x' $((1 << ($1 % 4))))
	_z=$(($1 / 4))
	while [ "$_z" -gt 0 ]; do
		_m=${_m}0
		_z=$((_z - 1))
	done
	echo "0x$_m"
}

# sw_delta BEFORE AFTER: "IDX NAME N" for each site called N > 0 times
# between two readings of ib_srpt's debugfs "sites" ("IDX NAME CALLS" a
# line); an empty BEFORE counts from 0 (the module was not loaded).
sw_delta() {
	awk 'FILENAME == ARGV[1] { b[$2] = $3; next }
	     { d = $3 - (($2 in b) ? b[$2] : 0); if (d > 0) print $1, $2, d }' "$1" "$2"
}

# sw_calls N MAX: the calls of a site to fail, one a line: 1..N, or with
# MAX > 0 and N > MAX, 1..MAX-1 and N.
sw_calls() {
	if [ "$2" = 0 ] || [ "$1" -le "$2" ]; then
		seq 1 "$1"
	else
		[ "$2" -lt 2 ] || seq 1 $(($2 - 1))
		echo "$1"
	fi
}

# sw_kmsg_form: /dev/kmsg records ("6,123,4567,-;text", as guest-init
# saves them) on stdin in dmesg's "[ seconds] text" form on stdout, what
# tools/vm/check-dmesg.sh reads; other lines as they are.
sw_kmsg_form() {
	sed -E 's/^[0-9]+,[0-9]+,([0-9]+),[^;]*;/\1 /' |
		awk '/^[0-9]+ / { t = $1; sub(/^[0-9]+ /, ""); printf "[%5d.%06d] %s\n", t / 1000000, t % 1000000, $0; next } { print }'
}

# sw_log_between FROM [TO]: the kernel log from marker FROM (to marker TO,
# or the end) in dmesg's "[ seconds] text" form (what check-dmesg.sh reads).
sw_log_between() {
	kmsg_sync >/dev/null 2>&1
	kmsg_text | awk -v from="$1" -v to="${2:-}" '
		index($0, from) { on = 1 }
		on { print }
		to != "" && index($0, to) { exit }' |
		sw_kmsg_form
}

# sw_verdict SITE RC OUT LOG REF0 REF1: what one injection at SITE led to.
# RC is the path's exit status, OUT what it printed (its error report),
# LOG the kernel log of the run (dmesg form), REF0 and REF1 the target's
# refused logins before and after (empty: not known).  Prints the outcome;
# status 0 when the injection fired and the path either completed or
# failed with the failure on record (an error message, an ib_srpt log line
# besides the injection's own, a counted login refusal), 1 when it failed
# without any, 2 when the injection did not fire.
sw_verdict() {
	grep -q "ib_srpt: fault injected at $1 (" "$4" ||
		{ echo "not reached"; return 2; }
	if [ "$2" = 0 ]; then
		echo "the path completed"
		return 0
	fi
	if [ -s "$3" ]; then
		echo "the path failed: $(head -n 1 "$3")"
		return 0
	fi
	_vl=$(grep "ib_srpt: " "$4" | grep -v "ib_srpt: fault injected at" | head -n 1)
	if [ -n "$_vl" ]; then
		echo "the path failed: $(echo "$_vl" | sed 's/^\[[ 0-9.]*\] //')"
		return 0
	fi
	if [ -n "$5" ] && [ -n "$6" ] && [ "$5" != "$6" ]; then
		echo "the path failed: the login refusal counted in logins_refused"
		return 0
	fi
	echo "the path failed without an error message, a log line or a counted refusal"
	return 1
}

# ---- the sweep's loop (the guest test defines the steps it calls: sw_arm,
# sw_disarm, sw_counts, sw_mark, sw_refused, sw_settle,
# sw_channels_clean, sw_kmemleak, sw_unload, and each path's p_PATH_pre,
# p_PATH_run and p_PATH_post; it sets run_tmo, step_tmo, max_n, sites,
# cover;
# it may replace the witness and sw_expect hooks below) ----

# sw_witness_start PATH: start another session that the injections on
# PATH must leave alone (status 1 when it cannot); sw_witness_ok: it is
# still up (else why not, on stdout, status 1); sw_witness_stop: end it.
# None by default.
sw_witness_start() { :; }
sw_witness_ok() { :; }
sw_witness_stop() { :; }

# sw_expect PATH SITE RC OUT: what an injection at SITE on PATH must lead
# to beyond surviving (RC the path's status, OUT its report), checked
# before the path is undone; prints why not and returns 1 when it did
# not.  Nothing by default.
sw_expect() { :; }

# sw_step NAME WHAT [TMO]: p_NAME_WHAT under a time bound; its output in
# $sw_tmp/sw.out; status 124 when it still runs then.
sw_step() {
	bounded "${3:-$step_tmo}" "p_$1_$2" >"$sw_tmp"/sw.out 2>&1
}

# sw_init: the counters of a sweep, zero; $sw_tmp (default /tmp) holds
# the sweep's files; the settings the caller left unset get defaults.
sw_init() {
	sw_tmp=${sw_tmp:-/tmp}
	run_tmo=${run_tmo:-240} step_tmo=${step_tmo:-120}
	max_n=${max_n:-0} sites=${sites:-} cover=${cover:-0}
	n_inj=0 n_fired=0 n_surv=0 n_unreached=0 n_paths=0
	: >"$sw_tmp"/sw.sites
	: >"$sw_tmp"/sw.table
}

# sw_inject PATH IDX SITE K N: one injection and its checks, one TAP line.
sw_inject() {
	_ip=$1 _ii=$2 _is=$3 _ik=$4 _in=$5
	_label="$_ip: $_is call $_ik of $_in"
	_why=
	n_inj=$((n_inj + 1))
	if ! sw_step "$_ip" pre; then
		not_ok "$_label: the path's start state (set up)"
		sed 's/^/# /' "$sw_tmp"/sw.out
		return 1
	fi
	_ref0=$(sw_refused)
	_m1=$(sw_mark)
	sw_fail_at=
	if [ "$_ip" = load ]; then
		sw_fail_at=$_is:$_ik
	elif ! sw_arm "$_ii" "$_ik"; then
		not_ok "$_label: armed"
		return 1
	fi
	export sw_fail_at
	sw_step "$_ip" run "$run_tmo"
	_rc=$?
	# The load path's injection is for this run alone: the undoing and
	# the clean run after the site's injections load without it.
	sw_fail_at=
	cp "$sw_tmp"/sw.out "$sw_tmp"/sw.run.out
	sw_settle
	sw_disarm
	_m2=$(sw_mark)
	if [ $_rc = 124 ]; then
		not_ok "$_label: the path hangs (still running after $run_tmo s); the sweep ends here"
		sed 's/^/# /' "$sw_tmp"/sw.run.out | head -n 20
		sw_log_between "$_m1" | tail -n 40 | sed 's/^/# /'
		return 2
	fi
	sw_log_between "$_m1" "$_m2" >"$sw_tmp"/sw.log.run
	_how=$(sw_verdict "$_is" "$_rc" "$sw_tmp"/sw.run.out "$sw_tmp"/sw.log.run "$_ref0" "$(sw_refused)")
	case $? in
	2)
		n_unreached=$((n_unreached + 1))
		sw_step "$_ip" post
		ok "$_label # SKIP not reached (the path took another course)"
		return 0
		;;
	1) _why="$_why; $_how" _how= ;;
	esac
	n_fired=$((n_fired + 1))
	echo "$_is" >>"$sw_tmp"/sw.sites
	_ex=$(sw_expect "$_ip" "$_is" "$_rc" "$sw_tmp"/sw.run.out) || _why="$_why; $_ex"
	sw_step "$_ip" post
	_prc=$?
	[ $_prc = 0 ] || _why="$_why; undoing it failed (status $_prc): $(head -n 3 "$sw_tmp"/sw.out | tr '\n' ' ')"
	[ $_prc != 124 ] || { not_ok "$_label: undoing the path hangs; the sweep ends here"; return 2; }
	_ch=$(sw_channels_clean) || _why="$_why; $_ch"
	_w=$(sw_witness_ok) || _why="$_why; $_w"
	sw_log_between "$_m1" >"$sw_tmp"/sw.log.all
	if ! sh "$SRPT_REPO/tools/vm/check-dmesg.sh" "$sw_tmp"/sw.log.all >"$sw_tmp"/sw.splat 2>&1; then
		_why="$_why; kernel splat"
	fi
	if [ -z "$_why" ]; then
		n_surv=$((n_surv + 1))
		ok "$_label: $_how"
		echo "$_ip $_is ok" >>"$sw_tmp"/sw.table
	else
		not_ok "$_label: ${_why#; }${_how:+ ($_how)}"
		echo "$_ip $_is not-ok" >>"$sw_tmp"/sw.table
		sed 's/^/# run: /' "$sw_tmp"/sw.run.out | head -n 10
		sed 's/^/# /' "$sw_tmp"/sw.splat | head -n 20
		grep "ib_srpt: \|srpt-faults" "$sw_tmp"/sw.log.all | tail -n 20 | sed 's/^/# log: /'
	fi
}

# sw_path PATH: the clean run that counts, then every injection, with the
# other session watching; then ib_srpt unloads.  Status 2: the sweep ends.
sw_path() {
	n_paths=$((n_paths + 1))
	if ! sw_witness_start "$1"; then
		not_ok "$1: another session started to watch"
		return 1
	fi
	sw_path_sites "$1"
	_ps=$?
	sw_witness_stop
	[ $_ps = 0 ] || return $_ps
	if sw_unload >"$sw_tmp"/sw.out 2>&1; then
		ok "$1: ib_srpt unloads after the injections"
	else
		not_ok "$1: ib_srpt unloads after the injections"
		sed 's/^/# /' "$sw_tmp"/sw.out | head -n 20
		return 2
	fi
}

# sw_path_sites PATH: the clean run that counts, then every injection.
sw_path_sites() {
	_p=$1
	if ! sw_step "$_p" pre; then
		not_ok "$_p: start state set up"
		sed 's/^/# /' "$sw_tmp"/sw.out
		return 1
	fi
	sw_counts "$sw_tmp"/sw.c0
	sw_fail_at=
	export sw_fail_at
	sw_step "$_p" run "$run_tmo"
	_rc=$?
	cp "$sw_tmp"/sw.out "$sw_tmp"/sw.run.out
	sw_settle
	sw_counts "$sw_tmp"/sw.c1
	if [ $_rc = 124 ]; then
		not_ok "$_p: runs clean (hangs); the sweep ends here"
		return 2
	fi
	sw_step "$_p" post
	if [ $_rc != 0 ]; then
		not_ok "$_p: runs clean without an injection (status $_rc)"
		sed 's/^/# /' "$sw_tmp"/sw.run.out | head -n 20
		return 1
	fi
	sw_delta "$sw_tmp"/sw.c0 "$sw_tmp"/sw.c1 >"$sw_tmp"/sw.delta
	if [ -n "$sites" ]; then
		awk -v want=" $sites " 'index(want, " " $2 " ")' "$sw_tmp"/sw.delta >"$sw_tmp"/sw.delta.f
		mv "$sw_tmp"/sw.delta.f "$sw_tmp"/sw.delta
	fi
	# cover=1: a site an earlier path failed (an injection there fired)
	# is not failed again.
	if [ "$cover" = 1 ]; then
		awk 'FILENAME == ARGV[1] { done[$1]; next } !($2 in done)' \
			"$sw_tmp"/sw.sites "$sw_tmp"/sw.delta >"$sw_tmp"/sw.delta.f
		mv "$sw_tmp"/sw.delta.f "$sw_tmp"/sw.delta
	fi
	ok "$_p: runs clean, $(wc -l <"$sw_tmp"/sw.delta) site(s) to fail: $(awk '{ printf "%s%s x%d", s, $2, $3; s = ", " }' "$sw_tmp"/sw.delta)"
	while read -r _i _s _n; do
		for _k in $(sw_calls "$_n" "$max_n"); do
			_u0=$n_unreached
			sw_inject "$_p" "$_i" "$_s" "$_k" "$_n" </dev/null
			[ $? != 2 ] || return 2
		done
		# cover=1: when the last call did not come this time (a site's
		# count varies from run to run), the first call instead.
		if [ "$cover" = 1 ] && [ "$_n" -gt 1 ] && [ "$n_unreached" -gt "$_u0" ]; then
			sw_inject "$_p" "$_i" "$_s" 1 "$_n" </dev/null
			[ $? != 2 ] || return 2
		fi
		sw_kmemleak "$_p: after the injections at $_s" </dev/null
		if sw_step "$_p" pre </dev/null && sw_step "$_p" run "$run_tmo" </dev/null; then
			sw_step "$_p" post </dev/null
			ok "$_p: runs clean again after the injections at $_s"
		else
			not_ok "$_p: runs clean again after the injections at $_s"
			sed 's/^/# /' "$sw_tmp"/sw.out | head -n 20
			sw_step "$_p" post </dev/null
		fi
	done <"$sw_tmp"/sw.delta
	return 0
}

# sw_summary NSITES: the sweep's figures and its last two checks: every
# injection that fired survived, and every site (of $sw_tmp/sw.allsites, or
# of $sites when the sweep was restricted) was failed on some path (an
# injection there fired).  A site no path reached is a failure, unless it
# is one of SRPT_FAULTS_UNREACHED (default none: every site has a path
# that calls it), which are a TODO.
sw_summary() {
	reached=$(sort -u "$sw_tmp"/sw.sites | wc -l)
	diag "fault sweep: $n_paths path(s), $reached site(s) of $1 failed, $n_inj injection(s), $n_fired fired, $n_unreached not reached, $n_surv survived"
	sort "$sw_tmp"/sw.table | uniq -c | awk '{ printf "#   %-14s %-14s %-6s %d\n", $2, $3, $4, $1 }'
	if [ "$n_fired" -gt 0 ] && [ "$n_surv" = "$n_fired" ]; then
		ok "every injection survived ($n_surv of $n_fired)"
	else
		not_ok "every injection survived ($n_surv of $n_fired)"
	fi
	if [ -n "$sites" ]; then
		missing=
		for s in $sites; do
			grep -qx "$s" "$sw_tmp"/sw.sites || missing="$missing $s"
		done
		is "${missing# }" "" "every site asked for was failed on some path"
	else
		missing=$(awk '{ print $2 }' "$sw_tmp"/sw.allsites | while read -r s; do
			grep -qx "$s" "$sw_tmp"/sw.sites || printf '%s ' "$s"; done)
		missing=${missing% }
		known='' unknown=''
		for s in $missing; do
			case " ${SRPT_FAULTS_UNREACHED-} " in
			*" $s "*) known="$known $s" ;;
			*) unknown="$unknown $s" ;;
			esac
		done
		if [ -n "$unknown" ]; then
			not_ok "every site was failed on some path (reached by no path:$unknown${known:+; known to be reached elsewhere:$known})"
		elif [ -n "$known" ]; then
			not_ok "every site was failed on some path # TODO reached by other tests, not by the sweep's paths:$known"
		else
			ok "every site was failed on some path"
		fi
	fi
}
