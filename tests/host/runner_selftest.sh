#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The runner must fail a boot whose scenarios all pass when the kernel
# reported a problem: a WARN at module load (stock 6.12), and, on the
# sanitizer kernel, a leak (kmemleak) and a lock-order inversion (lockdep)
# injected behind nvsim's test-only inject_bug switch. A report a scenario
# declares (expect_report) is excused only inside its window.
. "$(dirname "$0")/tap.bash"
out=$(realpath -m "${1:-$BUILD/host-runner}")
mkdir -p "$out"

expect_caught() # NAME KERNEL SCENARIO PATTERN
{
	local name=$1 kv=$2 scen=$3 pattern=$4 log rc mods
	mods=$(modules_for "$kv" "$out/$kv" 2>/dev/null) ||
		{ ok 1 "$name: build for $kv"; return; }
	log=$("$TOP/scripts/runvm" -k "$(kernel_image "$kv")" -m "$mods/ko" -p "$BUILD/progs" \
		-s "$scen" -o "$out/run-$scen" -n "selftest-$scen" -T 600 2>&1)
	rc=$?
	like "$log" "^ok 1 - $scen" "$name: the scenario's own assertions pass"
	ok $([ $rc -ne 0 ]; echo $?) "$name: the runner fails the boot anyway"
	like "$log" "not ok [0-9]+ - selftest-$scen: no kernel warnings" "$name: as a kernel report"
	grep -Eq -- "$pattern" "$out/run-$scen/splats.log"
	ok $? "$name: the report found is /$pattern/"
}

make -s -C "$TOP" progs
expect_caught "WARN at load" "$(stock_kernel 6.12)" runner_selftest_warn \
	"WARNING: .*pt_broken_warn_init"
# A declared report (tap.sh's expect_report) is excused in its window only.
expect_caught "undeclared WARN after a declared one" "$(stock_kernel 6.12)" \
	runner_selftest_expect "WARNING: .*pt_broken_warn_init"
grep -q 'WARNING: .*pt_broken_warn_init' "$out/run-runner_selftest_expect/expected.log"
ok $? "the declared WARN is listed as expected, not counted"
if [ -f "$(kernel_image debug)" ]; then
	expect_caught "injected leak" debug nvsim_bug_leak "unreferenced object"
	expect_caught "injected lock inversion" debug nvsim_bug_lockorder \
		"possible circular locking dependency"
else
	ok 1 "sanitizer kernel exists (scripts/build-testkernel)"
fi
summary
