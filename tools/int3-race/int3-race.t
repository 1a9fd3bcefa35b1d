#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# vmtest: timeout=300
# Guest side of tools/int3-race/run.sh (issue 25): loads the int3_race.ko
# run.sh built for the running kernel, with the parameters it wrote beside
# it, and reports the module's counts.  Not a VM test of make check.
. "$SRPT_REPO/tools/vm/lib.sh"
d=$SRPT_REPO/build/int3-race/$(uname -r)
args=$(cat "$d/args" 2>/dev/null || true)
# shellcheck disable=SC2086 # PARAM=VALUE words
run_ok "int3_race.ko built for $(uname -r) loads and runs (${args:-defaults})" \
	insmod "$d/int3_race.ko" $args
p=/sys/module/int3_race/parameters
if [ ! -d $p ]; then
	not_ok "the module's counts readable"
	exit 1
fi
for v in sites flips swept stale_cpu0 stale_cpu1 stale_rounds wrong unknown error; do
	eval "$v=\$(cat $p/$v)"
done
# shellcheck disable=SC2154 # set by the eval above
diag "sites $sites, flips $flips, swept by CPU 1 $swept; stale INT3 calls: CPU 0 $stale_cpu0, CPU 1 $stale_cpu1, after $stale_rounds flips; wrong $wrong, unknown $unknown, error $error"
dmesg | grep 'int3_race:' | sed 's/^/# dmesg: /'
is "$error" 0 "the run ended without error"
is "$sites" 64 "the key's 64 static branch sites found"
if [ "$flips" -gt 0 ] && [ "$swept" -gt 0 ]; then
	ok "the key flipped $flips times, CPU 1 ran the sites during $swept flips"
else
	not_ok "the key flipped (flips $flips) and CPU 1 ran the sites during flips (swept $swept)"
fi
is "$wrong" 0 "after each flip every site returned the value of the key's new state"
is "$unknown" 0 "no INT3 at a site holding an instruction not emulated"
is "$stale_cpu0 $stale_cpu1" "0 0" "no INT3 executed after text_poke_bp() replaced it (CPU 0, CPU 1)"
rmmod int3_race
