#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fuzz every parser of the pagetrail command (tests/host/fuzz_pagetrail.c)
# under ASan and UBSan with libFuzzer: the capture container, events.bin,
# key=value record lines, whole captures through diagnose, anomalies,
# history, status and evidence, and trace.dat through --trace. Seeds are the
# fixtures' captures. Short by default; PAGETRAIL_FUZZ_RUNS=N (or make fuzz)
# runs longer. Any crash, leak, sanitizer report or timeout fails.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-pagetrail_fuzz}
runs=${PAGETRAIL_FUZZ_RUNS:-10000}
rm -rf "$out"
mkdir -p "$out/seed" "$out/corpus" "$out/fixtures"
fx=$out/fixtures

srcs=$(ls "$TOP"/tools/pagetrail/*.c | grep -v -e /main.c -e /devices -e /denials -e /lxc)
tc="-DPT_NO_TRACECMD"
pkg-config --exists libtracecmd && tc="$(pkg-config --cflags --libs libtracecmd)"
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-I"$TOP/include" -I"$TOP/tools/pagetrail" -o "$out/fuzz_pagetrail" \
	"$TOP/tests/host/fuzz_pagetrail.c" $srcs $tc $(pkg-config --libs json-c) 2> "$out/build.log"
ok $? "fuzz target builds with clang -fsanitize=fuzzer,address,undefined"
make -s -C "$TOP" "$BUILD/progs/pagetrail" > /dev/null 2>&1
gcc -O2 -I"$TOP/include" -I"$TOP/tools/pagetrail" -o "$out/ptfixture" \
	"$TOP/tests/host/ptfixture.c" "$TOP/tools/pagetrail/records.c"
for f in "$TOP"/tests/host/fixtures/*.fx; do
	n=$(basename "$f" .fx)
	"$out/ptfixture" "$f" "$fx/$n"
	PAGETRAIL_DEBUGFS=$fx/$n "$BUILD/progs/pagetrail" capture -o "$fx/$n.cap" 2> /dev/null
	{ printf '\0'; cat "$fx/$n.cap"; } > "$out/seed/cap-$n"
	{ printf '\1'; cat "$fx/$n/events.bin"; } > "$out/seed/bin-$n"
	{ printf '\3'; cat "$fx/$n.cap"; } > "$out/seed/cmd-$n"
	{ printf '\2'; head -n1 "$fx/$n/anomalies"; } > "$out/seed/kv-$n"
done
for t in "$TOP"/tests/host/fixtures/*.dat; do
	[ -f "$t" ] && { printf '\4'; cat "$t"; } > "$out/seed/dat-$(basename "$t" .dat)"
done
is "$(ls "$out/seed" | wc -l | awk '{ print ($1 >= 20) }')" 1 "seed corpus from the fixtures ($(ls "$out/seed" | wc -l) inputs)"
(cd "$out" && LSAN_OPTIONS=suppressions=$TOP/tests/host/libtracecmd.supp:print_suppressions=0 ./fuzz_pagetrail -seed=1 -runs="$runs" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
	-close_fd_mask=3 corpus seed > fuzz.log 2>&1)
rc=$?
ok $rc "libFuzzer: $runs runs, no crash, leak, sanitizer report or timeout"
[ $rc = 0 ] || grep -E -m5 'ERROR|runtime error|SUMMARY|Test unit' "$out/fuzz.log" | sed 's/^/#   /'
like "$(tail -n3 "$out/fuzz.log")" "Done $runs runs" "libFuzzer ran them all"
arts=$(ls "$out" | grep -E '^(crash|leak|timeout|oom|slow-unit)-')
is "$arts" "" "no crash, leak or timeout artifacts"
summary
