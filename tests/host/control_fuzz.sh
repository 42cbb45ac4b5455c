#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The debugfs control parser (module/control.c), fuzzed in userspace under
# ASan and UBSan with libFuzzer, from a seed of every valid command and its
# near misses. Short by default; PAGETRAIL_FUZZ_RUNS=N runs longer.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-control_fuzz}
runs=${PAGETRAIL_FUZZ_RUNS:-50000}
rm -rf "$out"; mkdir -p "$out/seed" "$out/corpus"

clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$TOP/tests/host/kshim" -I"$TOP/include" -o "$out/control_fuzz" \
	"$TOP/tests/host/control_fuzz.c" 2> "$out/build.log"
ok $? "control parser fuzz target builds (clang -fsanitize=fuzzer,address,undefined)"
[ -s "$out/build.log" ] && sed 's/^/#   /' "$out/build.log" | head -n 5
i=0
for s in attach detach freeze thaw reset 'overwrite=0' 'overwrite=1' 'freeze_on_anomaly=1' \
	'devcg=1' 'devcg_major=195' 'devcg_major=all' ' attach\n' 'attach=1' 'overwrite=2' \
	'devcg_major=4096' 'devcg_major=-1' 'reset reset' 'thaw\0x'; do
	printf '%b' "$s" > "$out/seed/$((i += 1))"
done
(cd "$out" && ./control_fuzz -seed=1 -runs="$runs" -max_len=200 -timeout=5 corpus seed > fuzz.log 2>&1)
rc=$?
ok $rc "libFuzzer: $runs inputs, no crash, sanitizer report or broken promise"
[ $rc = 0 ] || grep -E -m5 'ERROR|runtime error|Assertion|SUMMARY' "$out/fuzz.log" | sed 's/^/#   /'
like "$(tail -n3 "$out/fuzz.log")" "Done $runs runs" "libFuzzer ran them all"

# The promise itself can fail: a parser that accepts a bad value is caught.
sed 's/cmd->number > 4095/cmd->number > 5000/' "$TOP/module/control.c" > "$out/control_bad.c"
sed "s#../../module/control.c#$out/control_bad.c#" "$TOP/tests/host/control_fuzz.c" > "$out/fuzz_bad.c"
clang -g -O1 -fsanitize=fuzzer,address,undefined -I"$TOP/tests/host/kshim" -I"$TOP/include" \
	-o "$out/control_fuzz_bad" "$out/fuzz_bad.c" 2>/dev/null &&
	printf 'devcg_major=4500' > "$out/seed/bad" &&
	(cd "$out" && ./control_fuzz_bad -runs=1 seed/bad > bad.log 2>&1)
ok $((! $?)) "a parser that accepts devcg_major=4500 fails the same harness"
summary
