#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The pagetrail command on fixture records (tests/host/fixtures/*.fx, built
# into debugfs-shaped directories by ptfixture): decode, status exit codes,
# history, anomalies, diagnose classes with pfn, culprit and records, capture
# round trip, and one-line errors on bad input.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-pagetrail_cli}
mkdir -p "$out"
PT=$BUILD/progs/pagetrail
FX=$TOP/tests/host/fixtures

make -s -C "$TOP" "$PT" > "$out/build.log" 2>&1
ok $? "pagetrail builds (make progs)"
gcc -O2 -Wall -Wextra -Werror -I"$TOP/include" -I"$TOP/tools/pagetrail" -o "$out/ptfixture" \
	"$TOP/tests/host/ptfixture.c" "$TOP/tools/pagetrail/records.c"
ok $? "ptfixture builds"
for f in "$FX"/*.fx; do
	"$out/ptfixture" "$f" "$out/$(basename "$f" .fx)" || echo "not ok - fixture $f"
done
kv() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -n1; }

# decode: the events text form, and --check's sequence line.
d=$("$PT" decode --check "$out/foreign/events.bin" 2> "$out/dec.err")
ok $? "decode --check accepts a well-formed events.bin"
is "$(wc -l <<< "$d")" 15 "decode: one line per record"
like "$(sed -n 9p <<< "$d")" "^seq=9 ts=3000000 cpu=1 pid=310 tgid=310 comm=nvsim_foreign role=free cause=foreign pfn=0x11a40 order=4 from=pooled_clean to=freed gen=1 .* ref=0 .* anomaly=FREE_WHILE_POOLED anomalies=0x20 ctx=task$" \
	"decode: the foreign free, field by field"
# The context a record was made in survives events.bin, text and JSON.
printf 'ev seq=1 ts=1 cpu=1 pid=0 tgid=0 comm=<irq> role=take cause=clean pfn=0x5000 order=0 from=pooled_clean to=taken gen=1 ref=1 ctx=softirq\nev seq=2 ts=2 cpu=0 pid=77 tgid=77 comm=sh role=take cause=clean pfn=0x5001 order=0 from=pooled_clean to=taken gen=1 ref=1 ctx=bh\n' > "$out/ctx.fx"
"$out/ptfixture" "$out/ctx.fx" "$out/ctx"
is "$("$PT" decode "$out/ctx/events.bin" | sed 's/.* ctx=//' | tr '\n' ' ')" "softirq bh " \
	"decode: each record's context (softirq, bh)"
is "$("$PT" history 0x5000 --from "$out/ctx" --json | tr -d ' \n' | grep -o '"context":"[a-z]*"')" '"context":"softirq"' \
	"history --json: the record's context"
is "$(cat "$out/dec.err")" "records=15 first_seq=1 last_seq=15 seq_gaps=0" "decode --check: count and sequence"
"$PT" decode --check < "$out/undetermined/events.bin" > /dev/null 2> "$out/dec2.err"
is "$(cat "$out/dec2.err")" "records=4 first_seq=20 last_seq=23 seq_gaps=0" "decode reads stdin"

# status: 0 when complete, 1 when something was not seen.
s=$("$PT" status --from "$out/foreign"); rc=$?
is "$rc" 0 "status exits 0 on complete coverage"
like "$s" "coverage    complete" "status says complete"
like "$s" "probes      5 of 5 planted" "status counts planted probes"
s=$("$PT" status --from "$out/undetermined"); rc=$?
is "$rc" 1 "status exits 1 when the ring lost records"
like "$s" "ring lost 12 records" "status names the loss"
# An inlined helper: not planted. With the profile's fallback line it is no
# hole (exit 0, the lost detail named); without one it is (exit 1).
sed 's/^coverage: probe=nv_alloc_set_page backend=fprobe planted=1 error=0 hits=6/coverage: probe=nvsim:nv_alloc_set_page backend=none planted=0 error=-2 hits=0/' \
	"$FX/clean.fx" > "$out/inl-nofb.fx"
{ cat "$out/inl-nofb.fx"
  echo "coverage: fallback=nv_alloc_set_page via=page_table_walk_at_take_and_alloc_return lost=assignment_order_within_one_call"; } > "$out/inl-fb.fx"
"$out/ptfixture" "$out/inl-nofb.fx" "$out/inl-nofb" && "$out/ptfixture" "$out/inl-fb.fx" "$out/inl-fb"
s=$("$PT" status --from "$out/inl-fb"); rc=$?
is "$rc" 0 "status: an inlined helper a fallback covers is no hole (exit 0)"
like "$s" "fallback: nvsim:nv_alloc_set_page inlined, seen via page_table_walk_at_take_and_alloc_return; detail lost: assignment_order_within_one_call" \
	"status: names the fallback and the detail it loses"
like "$("$PT" status --from "$out/inl-fb" --json | tr -d ' \n')" '"fallbacks":\[\{"symbol":"nv_alloc_set_page","via":"page_table_walk_at_take_and_alloc_return"' \
	"status --json: the fallback"
s=$("$PT" status --from "$out/inl-nofb"); rc=$?
is "$rc" 1 "status: a probe not planted with no fallback is a hole (exit 1)"
like "$s" "probe nvsim:nv_alloc_set_page not planted" "status: names the probe not planted"
"$PT" status --from "$out/nosuch" > /dev/null 2>&1
is $? 2 "status exits 2 on a missing source"
is "$("$PT" status --from "$out/foreign" --json | grep -c '"complete":true')" 1 "status --json: complete"

# history: the page's table, chunk records included.
h=$("$PT" history 0x11a40 --from "$out/foreign")
like "$h" "^history of pfn 0x11a40 .*: 9 records" "history: 9 records of the chunk"
like "$h" "9 .* nvsim_foreign/310 +1 free +foreign +pooled_clean->freed +1 +0 +0 +0 +0 +FREE_WHILE_POOLED" \
	"history: the foreign free row (thread, state, gen, ref)"
like "$h" "14 .* cuinit/201 .* insert .* 1 +2 +0 +0 +-22 +INSERT_ZERO_REF" "history: the insert row (gen 1, alloc 2, ref 0, -22)"
j=$("$PT" history 0x11a40 --from "$out/foreign" --json)
is "$(grep -c '"refcount":0' <<< "$j")" 4 "history --json: four records with refcount 0"
"$PT" history 0x123 --from "$out/foreign" > /dev/null
is $? 1 "history of an unseen pfn exits 1"

# anomalies: history and stack.
a=$("$PT" anomalies --from "$out/foreign")
like "$a" "anomaly 1: FREE_WHILE_POOLED seq=9 pfn=0x11a40 .* thread=nvsim_foreign/310" "anomalies: the free, its thread"
like "$a" "nvsim_foreign_put\+0x3c/0x90 \[nvsim\]" "anomalies: the culprit's stack"
is "$("$PT" anomalies --from "$out/foreign" --json | grep -c '"role":"free"')" 4 \
	"anomalies --json: the free itself, then in each of three histories"

# diagnose: class, rule, pfn, culprit, records, return chain.
diag1() { "$PT" diagnose --from "$out/$1" | grep '^finding 1:'; }
f=$(diag1 foreign)
is "$(kv class <<< "$f") $(kv pfn <<< "$f") $(kv culprit <<< "$f") $(kv records <<< "$f")" \
	"Z8 0x11a40 nvsim_foreign/310 5,7,9,10,14,15" "diagnose foreign: Z8, the pfn, the foreign thread, its records"
like "$("$PT" diagnose --from "$out/foreign")" "return chain: vm_insert_page\(pfn 0x11a40\) = -22 -> nvidia_mmap_helper = -11 -> nvidia_mmap = -11 -> mmap\(2\) fails with EAGAIN" \
	"diagnose foreign: the return chain to EAGAIN"
d=$("$PT" diagnose --from "$out/foreign_after")
is "$(grep -c '^finding' <<< "$d") $(kv records <<< "$(grep '^finding 1:' <<< "$d")")" "1 5,7,9,10,14,15,16" \
	"diagnose: a later allocation of the foreign-freed page joins the Z8 finding"
like "$d" "OBSERVED seq 16 +afterwards trace-cmd/186 got pfn 0x11a40 from the kernel while the driver still listed it: ALLOC_WHILE_OWNED" \
	"diagnose: and says what it is"
f=$(diag1 noncomp)
is "$(kv class <<< "$f") $(kv rule <<< "$f") $(kv pfn <<< "$f")" "Z1 Z1.noncompound-tail-at-insert 0x30001" "diagnose noncomp: Z1 on the tail page"
f=$(diag1 stale_nozero)
is "$(kv rule <<< "$f") $(kv pfn <<< "$f") $(kv culprit <<< "$f")" "Z2.insert-after-free 0x40000 cuinit-map/202" "diagnose stale (nozero): Z2, the mapping thread"
f=$(diag1 stale_reclaim)
is "$(kv rule <<< "$f") $(kv records <<< "$f")" "Z2.insert-after-free 3,4,5,6" "diagnose stale (reclaim): reclaim, free, insert, map"
f=$(diag1 stale_pooled)
is "$(kv rule <<< "$f") $(kv pfn <<< "$f")" "Z2.insert-while-pooled 0x60000" "diagnose stale (pooled): silent aliasing"

# Z2 is gated by the driver release (nvidia-610.md D5): from 595.71.05,
# 595.44.06, 580.159.03 and 535.309.01 on, and in 610.x, the mmap context
# holds a usage_count reference, so the same records are not Z2 there.
# The release line is the driver's own /proc/driver/nvidia/version format.
nvline() { echo "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  $1  Release Build  (dvs-builder@U22-I3-AF03-09-1)  Tue May 26 00:00:00 UTC 2026"; }
for fx in stale_nozero stale_pooled stale_foreign; do
	for rel in 535.261.03 535.309.01 580.159.03 590.48.01 595.44.05 595.44.06 595.45.04 595.58.03 595.71.05 595.80 610.43.02 610.57.04; do
		rm -rf "$out/rel-$fx-$rel"
		cp -r "$out/$fx" "$out/rel-$fx-$rel"
		nvline "$rel" > "$out/rel-$fx-$rel/driver_version"
	done
done
for rel in 535.261.03 590.48.01 595.44.05 595.45.04 595.58.03; do
	f=$(diag1 "rel-stale_nozero-$rel")
	is "$(kv rule <<< "$f")" "Z2.insert-after-free" "diagnose stale (nozero) on $rel (context holds no reference): Z2"
done
like "$("$PT" diagnose --from "$out/rel-stale_nozero-595.45.04")" "DERIVED +driver 595.45.04 \(driver_version\) predates 595.71.05" \
	"diagnose Z2 on 595.45.04 says why Z2 applies: the release predates the reference"
like "$("$PT" diagnose --from "$out/stale_nozero")" "UNKNOWN +the driver's release is not in this source" \
	"diagnose Z2 with no release in the source says the release is unknown"
for rel in 535.309.01 580.159.03 595.44.06 595.71.05 595.80 610.43.02 610.57.04; do
	f=$(diag1 "rel-stale_nozero-$rel")
	is "$(kv class <<< "$f") $(kv rule <<< "$f") $(kv pfn <<< "$f")" "UNDETERMINED Z2-ruled-out 0x40000" \
		"diagnose stale (nozero) on $rel (context holds a reference): not Z2, undetermined"
done
d=$("$PT" diagnose --from "$out/rel-stale_nozero-610.43.02")
like "$d" "DERIVED +driver 610.43.02 \(driver_version\): its mmap context holds a usage_count reference.*\(Z2 ruled out\)" \
	"diagnose on 610.43.02 says why Z2 was ruled out"
like "$d" "UNKNOWN +no record shows why the driver's own free of pfn 0x40000 \(cause direct\)" \
	"and what is missing"
f=$(diag1 rel-stale_pooled-610.43.02)
is "$(kv class <<< "$f") $(kv rule <<< "$f") $(kv pfn <<< "$f")" "UNDETERMINED Z2-ruled-out 0x60000" \
	"diagnose stale (pooled) on 610.43.02: not Z2"
f=$(diag1 rel-stale_foreign-595.45.04)
is "$(kv rule <<< "$f") $(kv culprit <<< "$f")" "Z2.insert-after-free cuinit-map/202" "a foreign free then insert on 595.45.04: Z2 (the context may be stale)"
f=$(diag1 rel-stale_foreign-610.43.02)
is "$(kv class <<< "$f") $(kv rule <<< "$f") $(kv pfn <<< "$f") $(kv culprit <<< "$f") $(kv records <<< "$f")" \
	"FOREIGN FOREIGN.free-then-insert 0x40000 nvsim_foreign/310 2,3,4" \
	"the same on 610.43.02: another owner freed it, the freeing thread is the culprit"
f=$(diag1 pinned)
is "$(kv class <<< "$f") $(kv pfn <<< "$f") $(kv records <<< "$f")" "PIN 0x70000 2,4,7" "diagnose pinned: admit, aliased take, and the re-admission of the still-pinned page in the same finding"
d=$("$PT" diagnose --from "$out/clean"); rc=$?
is "$rc $(grep -c '^finding' <<< "$d")" "0 0" "diagnose clean: no finding, exit 0"
d=$("$PT" diagnose --from "$out/undetermined")
is "$(kv class <<< "$(grep '^finding 1:' <<< "$d")")" UNDETERMINED "diagnose with a gap: undetermined"
like "$d" "UNKNOWN .*transition before this take of pfn 0x90000 .* was not observed \(gap\)" "undetermined: names the gap"
like "$d" "UNKNOWN .*ring lost 12 records" "undetermined: names the ring loss"
j=$("$PT" diagnose --from "$out/foreign" --json)
like "$(tr -d ' \n' <<< "$j")" '"class":"Z8","rule":"Z8.foreign-put-on-pooled-page".*"pfn":"0x11a40","culprit":\{"comm":"nvsim_foreign","pid":310' \
	"diagnose --json: class, rule, pfn, culprit"

# --trace: a trace-cmd recording from a 6.12 guest (pt_cli_trace, cuinit
# --stale=nozero), read through libtracecmd.
TD=$FX/stale_nozero.dat
d=$("$PT" diagnose --trace "$TD"); rc=$?
f=$(grep '^finding 1:' <<< "$d")
is "$rc $(kv rule <<< "$f") $(kv pfn <<< "$f") $(kv culprit <<< "$f") $(kv records <<< "$f")" \
	"1 Z2.insert-after-free 0x866c cuinit/293 33,65,66" "--trace: Z2 on the stale page, the mapping thread, free/insert/map"
like "$d" "UNKNOWN +no stats: ring losses, gaps and tracker overflow not known" "--trace: says what a trace cannot show"
like "$("$PT" history 0x866c --trace "$TD")" "65 .* cuinit/293 .* insert .* freed->freed .* 0 +-22 +INSERT_ZERO_REF,INSERT_AFTER_FREE" \
	"history --trace: the insert after free"
head -c 200000 "$TD" > "$out/trunc.dat"
e=$("$PT" diagnose --trace "$out/trunc.dat" 2>&1 > /dev/null); rc=$?
is "$rc $(wc -l <<< "$e")" "2 1" "--trace: a truncated trace.dat is one line and exit 2"
echo hello > "$out/garbage.dat"
e=$("$PT" diagnose --trace "$out/garbage.dat" 2>&1 > /dev/null); rc=$?
like "$rc $e" "^2 pagetrail: .*not a readable trace-cmd trace.dat" "--trace: not a trace.dat"

# capture: one file, the same answers.
PAGETRAIL_DEBUGFS=$out/foreign "$PT" capture -o "$out/foreign.cap" -- sh -c 'exit 3' 2> /dev/null
ok $? "capture from a debugfs-shaped directory, running a command"
is "$(head -n1 "$out/foreign.cap")" "pagetrail-capture 1" "capture: versioned header"
is "$(grep -ac '^command_exit=3$' "$out/foreign.cap")" 1 "capture: the command's exit status"
is "$("$PT" diagnose --from "$out/foreign.cap" | grep '^finding')" "$("$PT" diagnose --from "$out/foreign" | grep '^finding')" \
	"diagnose --from the capture equals the directory's"

# evidence: aliases only, labels that match the records. The foreign
# fixture again with distinctive pids and pfns, so a leak cannot hide in
# an ordinary number.
# Thread names too: the culprit's stack ships, and its symbol
# nvsim_foreign_put is public while the thread's name is not.
sed -e 's/pid=201 tgid=201/pid=48201 tgid=48201/g; s/pid=45 tgid=45/pid=48045 tgid=48045/g' \
    -e 's/pid=310 tgid=310/pid=48310 tgid=48310/g; s/0x11a40/0x7f3a1/g; s/0x22000/0x7e2b3/g' \
    -e 's/comm=cuinit/comm=qzcuda/g; s/comm=nv_mem_pool_scr/comm=qzscrub/g; s/comm=nvsim_foreign/comm=qzforeign/g' \
    "$FX/foreign.fx" > "$out/private.fx"
"$out/ptfixture" "$out/private.fx" "$out/private"
PAGETRAIL_DEBUGFS=$out/private "$PT" capture -o "$out/private.cap" 2> /dev/null
"$PT" evidence -o "$out/ev" --from "$out/private.cap"
ok $? "evidence -o DIR"
leaks=$(grep -HnoiE '0x7f3a1|0x7e2b3|7f3a1|7e2b3|48201|48045|48310|qzcuda|qzscrub|qzforeign|aaaa0001|bbbb0002|0x[0-9a-f]{5,}' \
	"$out/ev/evidence.json" "$out/ev/summary.md")
is "$leaks" "" "privacy scan: no raw pfn, pid, thread name, token or address in evidence.json or summary.md"
"$PT" evidence -o "$out/ev2" --from "$out/private.cap"
cmp -s "$out/ev/evidence.json" "$out/ev2/evidence.json"
ok $? "the same input gives the same aliases (byte-identical evidence.json)"
ev=$(tr -d ' \n' < "$out/ev/evidence.json")
like "$ev" '"class":"Z8","rule":"Z8.foreign-put-on-pooled-page","title":"[^"]*","page":"PAGE_P1","culprit":"THREAD_T1"' \
	"evidence: Z8 on PAGE_P1, culprit THREAD_T1"
# Each OBSERVED statement cites a record; that record has the role it claims,
# and its thread alias is the foreign one exactly when the record's pid is.
dec=$("$PT" decode "$out/private/events.bin")
bad=0 n=0
while read -r seq role thread; do
	n=$((n + 1))
	line=$(grep "^seq=$seq " <<< "$dec")
	[[ $line == *" role=$role "* ]] || { echo "# record $seq is not a $role"; bad=1; }
	t1=0 fp=0
	[ "$thread" = THREAD_T1 ] && t1=1
	[[ $line == *" pid=48310 "* ]] && fp=1
	[ $t1 = $fp ] || { echo "# record $seq: $thread"; bad=1; }
done < <(grep -o '"label":"OBSERVED","record":[0-9]*,"role":"[a-z]*","page":"[A-Z0-9_]*","thread":"[A-Z0-9_]*"' <<< "$ev" |
	sed 's/.*"record":\([0-9]*\),"role":"\([a-z]*\)".*"thread":"\([A-Z0-9_]*\)"/\1 \2 \3/')
is "$bad $n" "0 6" "evidence: the 6 OBSERVED statements match their records (role, thread)"
is "$(grep -o '"label":"DERIVED","rule":"[^"]*"' <<< "$ev" | sort -u | sed 's/.*rule":"//; s/"//')" Z8.foreign-put-on-pooled-page \
	"evidence: the DERIVED statements name the Z8 rule"
like "$(cat "$out/ev/summary.md")" '\| vm_insert_page \| kretprobe \| 1 \| 6 \| 0 \|' "summary.md: the coverage table"
# The culprit's kernel stack ships (symbols, no address), in both files;
# a frame not in symbol+offset form (a raw address) is withheld.
like "$ev" '"stack":\["nvsim_foreign_put\+0x3c/0x90\[nvsim\]","kthread\+0xe8/0x120"\]' \
	"evidence.json: the culprit's kernel stack, frame by frame"
like "$(cat "$out/ev/summary.md")" "Kernel stack of the culprit \(THREAD_T1, record 9\):" "summary.md: the culprit's stack, headed"
like "$(cat "$out/ev/summary.md")" "^    nvsim_foreign_put\+0x3c/0x90 \[nvsim\]$" "summary.md: its frames"
sed 's|^stack 9 kthread+0xe8/0x120$|stack 9 ffffffffc0a01234\nstack 9 kthread+0xe8/0x120 [x] junk|' "$out/private.fx" > "$out/addr.fx"
"$out/ptfixture" "$out/addr.fx" "$out/addr"
"$PT" evidence -o "$out/ev-addr" --from "$out/addr" 2> /dev/null
is "$(grep -c 'frame withheld' "$out/ev-addr/evidence.json") $(grep -ciE 'ffffffffc0a01234|junk' "$out/ev-addr/evidence.json" "$out/ev-addr/summary.md" | awk -F: '{s += $2} END {print s}')" "2 0" \
	"evidence: a stack line that is not symbol+offset (a raw address) is withheld"
"$PT" evidence -o "$out/ev3" --from "$out/undetermined" > /dev/null
is "$(tr -d ' \n' < "$out/ev3/evidence.json" | grep -o '"label":"UNKNOWN","text":"ringlost12records"' | head -n1)" \
	'"label":"UNKNOWN","text":"ringlost12records"' "evidence: what was not seen is UNKNOWN"

# timeline: one lane per flagged page, roles coloured, anomalies ringed;
# rendered to PNG by rsvg-convert (librsvg2-bin), so it must be valid SVG.
"$PT" timeline -o "$out/tl.svg" --from "$out/foreign" 2> /dev/null
ok $? "timeline -o FILE.svg"
svg=$(cat "$out/tl.svg")
like "$svg" "class='lane'>pfn 0x11a40</text>" "timeline: a lane for the Z8 page"
is "$(grep -c "stroke='#e00000' stroke-width='4'" "$out/tl.svg")" 3 "timeline: its three anomalies ringed"
like "$svg" "class='thr'>nvsim_foreign/310</text>" "timeline: the foreign thread marked"
like "$svg" "class='an'>INSERT_ZERO_REF</text>" "timeline: the anomaly named"
if command -v rsvg-convert > /dev/null; then
	rsvg-convert -o "$out/tl.png" "$out/tl.svg" 2> "$out/rsvg.err"
	ok $? "rsvg-convert renders it ($(stat -c %s "$out/tl.png" 2>/dev/null) bytes of PNG)"
else
	ok 1 "rsvg-convert missing (librsvg2-bin)"
fi
sed 's/comm=nvsim_foreign/comm=<x\&y>/' "$FX/foreign.fx" > "$out/xml.fx"
"$out/ptfixture" "$out/xml.fx" "$out/xml"
"$PT" timeline -o "$out/xml.svg" --from "$out/xml" 2> /dev/null
like "$(cat "$out/xml.svg")" "class='thr'>&lt;x&amp;y&gt;/310</text>" "timeline: a hostile thread name is escaped"

# Bad input: one line, exit 2, no crash.
bad() {	# bad NAME FILE-CONTENT-COMMAND EXPECTED-MESSAGE
	eval "$2" > "$out/bad.$1"
	e=$("$PT" diagnose --from "$out/bad.$1" 2>&1 > /dev/null); rc=$?
	is "$rc $(wc -l <<< "$e")" "2 1" "bad $1: exit 2, one line"
	like "$e" "$3" "bad $1: says why"
}
bad truncated "head -c 300 '$out/foreign.cap'" "truncated"
bad version "sed '1s/ 1$/ 9/' '$out/foreign.cap'" "version not supported"
bad notcap "echo hello" "not a pagetrail capture"
bad hugelen "printf 'pagetrail-capture 1\nsection stats 99999999999999999999999\n'" "bad section length"
bad dup "printf 'pagetrail-capture 1\nsection stats 1\nx\nsection stats 1\nx\nend\n'" "repeated"
bad evtrunc "printf 'pagetrail-capture 1\nsection events.bin 20\n'; head -c 20 '$out/foreign/events.bin'; printf '\nend\n'" "events.bin: truncated record"
"$PT" decode "$out/bad.notcap" > /dev/null 2> "$out/dec3.err"
is "$? $(cat "$out/dec3.err")" "2 pagetrail: decode: $out/bad.notcap: too short for a header" "decode: short input refused"

# The command's surface: every subcommand's --help and -h exit 0 with its
# manual on stdout; `pagetrail help SUB` prints the same; usage errors are
# one line, "pagetrail SUB: ...", exit 2; --version is dkms.conf's.
subs="status capture decode history anomalies diagnose evidence timeline devices denials"
bad_help=
for c in $subs; do
	h=$("$PT" "$c" --help 2> "$out/help.err"); rc=$?
	[ "$rc" = 0 ] && [[ $h == "usage: pagetrail $c "* ]] && [ ! -s "$out/help.err" ] || bad_help="$bad_help $c--help($rc)"
	[ "$("$PT" "$c" -h 2>&1)" = "$h" ] || bad_help="$bad_help $c-h"
	[ "$("$PT" help "$c" 2>&1)" = "$h" ] || bad_help="$bad_help help-$c"
done
is "$bad_help" "" "every subcommand: --help and -h exit 0 with its manual; pagetrail help SUB prints the same"
# history took -h for a PFN; capture and evidence printed usage and exit 2.
h=$("$PT" history --from "$out/foreign" -h); rc=$?
like "$rc $h" "^0 usage: pagetrail history .*PFN" "history -h: the manual, not a PFN"
is "$("$PT" --version)" "pagetrail $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")" "--version: dkms.conf's PACKAGE_VERSION"
"$PT" help > "$out/help.txt"; rc=$?
is "$rc $(grep -c '^  [a-z]' "$out/help.txt")" "0 10" "pagetrail help: exit 0, the ten subcommands"
uerr() {	# uerr EXPECTED-REGEX DESCRIPTION ARGS...
	local re=$1 d=$2 e rc
	shift 2
	e=$("$PT" "$@" 2>&1 > /dev/null); rc=$?
	is "$rc $(wc -l <<< "$e")" "2 1" "usage error, $d: exit 2, one line"
	like "$e" "$re" "usage error, $d: says what was wrong"
}
uerr "^pagetrail status: unknown option --bogus" "unknown option" status --bogus
uerr "^pagetrail diagnose: --from needs a value \(CAPTURE\|DIR\)" "missing value" diagnose --from
uerr "^pagetrail history: which page\? a PFN is required" "history without a PFN" history --from "$out/foreign"
uerr "^pagetrail history: 'zz' is not a PFN" "history with a bad PFN" history zz --from "$out/foreign"
uerr "^pagetrail evidence: -o DIR is required" "evidence without -o" evidence --from "$out/foreign"
uerr "^pagetrail timeline: -o FILE.svg is required" "timeline without -o" timeline --from "$out/foreign"
uerr "^pagetrail anomalies: unexpected argument 'extra'" "an operand where none is taken" anomalies extra
uerr "^pagetrail decode: --check takes no value" "a value given to a flag" decode --check=1
uerr "^pagetrail devices: --lxc-config and --devices-list exclude each other" "devices: exclusive options" devices --lxc-config a --devices-list b
uerr "^pagetrail denials: unknown option --bogus" "denials: unknown option" denials --bogus
uerr "^pagetrail help: no subcommand 'nosuch'" "help of an unknown subcommand" help nosuch
is "$("$PT" diagnose --from="$out/foreign" | grep -c '^finding')" 1 "--opt=value is accepted"

# decode reads a capture (--from) in the order the module wrote it; a
# capture given where events.bin is expected says so.
"$PT" decode --check --from "$out/foreign.cap" > "$out/decfrom.txt" 2> "$out/decfrom.err"
is "$? $(cmp -s "$out/decfrom.txt" <("$PT" decode "$out/foreign/events.bin") && echo same) $(cat "$out/decfrom.err")" \
	"0 same records=15 first_seq=1 last_seq=15 seq_gaps=0" "decode --from CAPTURE: the capture's events.bin, as decode FILE prints it"
e=$("$PT" decode "$out/foreign.cap" 2>&1 > /dev/null); rc=$?
is "$rc $e" "2 pagetrail decode: $out/foreign.cap is a pagetrail capture, not events.bin: pagetrail decode --from $out/foreign.cap" \
	"decode CAPTURE: says it is a capture and how to decode it"

# capture -o and evidence -o never overwrite silently: the old one is kept
# as .old (as perf keeps perf.data.old); --force overwrites.
rm -f "$out/keep.cap" "$out/keep.cap.old"
PAGETRAIL_DEBUGFS=$out/foreign "$PT" capture -o "$out/keep.cap" 2> /dev/null
echo previous > "$out/keep.cap.marker"; cp "$out/keep.cap" "$out/keep.first"
PAGETRAIL_DEBUGFS=$out/clean "$PT" capture -o "$out/keep.cap" 2> "$out/keep.err"
is "$?:$(cmp -s "$out/keep.cap.old" "$out/keep.first" && echo kept)" "0:kept" "capture -o over an existing file: the old one is FILE.old"
like "$(cat "$out/keep.err")" "^pagetrail capture: kept the previous $out/keep.cap as $out/keep.cap.old" "capture: says it kept it"
PAGETRAIL_DEBUGFS=$out/foreign "$PT" capture --force -o "$out/keep.cap" 2> "$out/keep.err"
is "$(cmp -s "$out/keep.cap.old" "$out/keep.first" && echo untouched) $(grep -c kept "$out/keep.err")" "untouched 0" \
	"capture --force: overwrites, the .old stays as it was"
rm -rf "$out/evk"
"$PT" evidence -o "$out/evk" --from "$out/foreign" 2> /dev/null
cp "$out/evk/summary.md" "$out/evk.first"
"$PT" evidence -o "$out/evk" --from "$out/clean" 2> "$out/evk.err"
is "$?:$(cmp -s "$out/evk/summary.md.old" "$out/evk.first" && echo kept)" "0:kept" "evidence -o an existing package: the old files are kept as .old"
like "$(cat "$out/evk.err")" "kept the previous $out/evk/evidence.json as $out/evk/evidence.json.old" "evidence: says so"

# Wording: an UNDETERMINED finding names the thread of its record without
# calling it the culprit; plurals; one time base per anomaly block; no
# empty stack header.
f=$(diag1 undetermined)
is "$(kv insert_thread <<< "$f") $(kv insert_seq <<< "$f") $(grep -c culprit <<< "$f")" "cuinit/201 22 0" \
	"UNDETERMINED: insert_thread= and insert_seq=, never culprit="
f=$(diag1 rel-stale_nozero-610.43.02)
is "$(kv insert_thread <<< "$f") $(grep -c culprit <<< "$f")" "cuinit-map/202 0" "Z2 ruled out (UNDETERMINED): the insert's thread, not a culprit"
j=$("$PT" diagnose --from "$out/undetermined" --json | tr -d ' \n')
like "$j" '"culprit":null,"thread":\{"comm":"cuinit","pid":201,"tgid":201,"seq":22,"role":"insert","blamed":false\}' \
	"diagnose --json UNDETERMINED: culprit null, the thread named with its role, not blamed"
"$PT" evidence -o "$out/ev-und" --from "$out/undetermined" 2> /dev/null
like "$(tr -d ' \n' < "$out/ev-und/evidence.json")" '"culprit":null,"thread":"THREAD_T1","thread_role":"insert"' "evidence.json UNDETERMINED: culprit null"
like "$(cat "$out/ev-und/summary.md")" "culprit unknown \(THREAD_T1 is the thread of the insert, not blamed\)" "summary.md UNDETERMINED: culprit unknown"
like "$(cat "$out/ev-und/summary.md")" "Kernel stack of the thread \(THREAD_T1, record [0-9]+\)" "summary.md UNDETERMINED: the stack is the thread's, not a culprit's"
like "$("$PT" diagnose --from "$out/undetermined")" "^pagetrail diagnose .*: 1 finding from 1 anomaly in 4 records" "diagnose: 1 finding, 1 anomaly"
like "$("$PT" history 0x90000 --from "$out/undetermined")" "^history of pfn 0x90000 .*: [0-9]+ records?, oldest first" "history: record(s)"
a=$("$PT" anomalies --from "$out/foreign")
is "$(grep -c '^    ts=' <<< "$a")" 0 "anomalies: the kept history is on the table's time base (no raw ts=)"
like "$a" "    t=2.000ms role=free cause=foreign" "anomalies: the foreign free at 2.000 ms, as in the table"
is "$(grep -A1 '^  stack:$' <<< "$a" | grep -c '^anomaly ')" 0 "anomalies: no empty stack: header"
like "$a" "  stack: none kept with this anomaly" "anomalies: an anomaly without a stack says so"

# One source: README's command table and pagetrail(8) are printed from the
# tables --help prints, so they cannot drift.
is "$(sed -n '/^## The `pagetrail` command/,/^## /p' "$TOP/README.md" | sed -n '/^| subcommand | does |$/,/^$/p' | sed '/^$/d')" \
	"$("$PT" help --markdown)" "README's command table is pagetrail help --markdown"
"$PT" help --man > "$out/pagetrail.8"
is "$? $(grep -c '^\.SS "pagetrail ' "$out/pagetrail.8")" "0 10" "pagetrail help --man: pagetrail(8) with a section per subcommand"
if command -v man > /dev/null; then
	is "$(MANWIDTH=80 man -l "$out/pagetrail.8" 2>&1 > /dev/null)" "" "pagetrail(8) renders without a warning"
fi

# The page_pool profile (fixtures/pagepool.fx): its class, the in-flight
# report in diagnose and status, and renamed probes that are no hole.
PPF=$out/pagepool
d=$("$PT" diagnose --from "$PPF"); rc=$?
is "$rc $(grep -c '^finding ' <<< "$d")" "1 3" "pagepool diagnose: exit 1, three findings"
like "$(grep '^finding 2:' <<< "$d")" "class=PP_OVER_RELEASE rule=PP.fragment-over-release pfn=0x33000 culprit=<irq>/0 culprit_seq=15 records=15,16$" \
	"pagepool diagnose: a fragment over-release seen at the next hand-out, named after the context it was handed to"
like "$d" "had -1 references left for the drain" "pagepool diagnose: how far below the drain's need"
like "$(grep '^finding 3:' <<< "$d")" "class=PP_RELEASE_UNHELD rule=PP.release-of-page-let-go pfn=0x33001 culprit=drvworker/1300 culprit_seq=19 records=18,19$" \
	"pagepool diagnose: a page let go twice, the second release's thread"
like "$(grep '^finding 1:' <<< "$d")" "class=PP_DOUBLE_RECYCLE rule=PP.double-recycle pfn=0x11a40 culprit=sh/978 culprit_seq=7 records=5,6,7$" \
	"pagepool diagnose: the double recycle, its page, the shell that did it, the take and both recycles"
is "$(grep -c '^  pfn 0x11a41 taken by <irq>/0 at t=0.001400 (seq 9); last: assign (pool)' <<< "$d")" 1 \
	"pagepool diagnose: the page NAPI took and kept, in the destroy's in-flight report"
st=$("$PT" status --from "$PPF"); rc=$?
is "$rc" 0 "pagepool status: complete (names this kernel lacks are no hole)"
like "$st" "pool #1 destroy at t=0.001500 by sh/978: hold=2 release=1 in flight=1 \(the kernel's count\); the records show 1 page held" \
	"pagepool status: the in-flight report of a capture"
like "$st" "other name: page_pool_alloc_netmems is not in this kernel; its role \(take\) is page_pool_alloc_netmem's" \
	"pagepool status: which name of a role this kernel has"
is "$("$PT" status --from "$PPF" --json | tr -d ' \n' | grep -o '"pools":\[{"pool":1,"event":"destroy"[^]]*"pfn":"0x11a41"' | wc -l)" 1 \
	"pagepool status --json: pools[0] is the destroy, with 0x11a41 held"
cp -r "$PPF" "$out/pagepool-busy"
sed -i 's/^probe=page_pool_alloc_netmem backend=fprobe planted=1 error=0/probe=page_pool_alloc_netmem backend=none planted=0 error=-16/' "$out/pagepool-busy/coverage"
st=$("$PT" status --from "$out/pagepool-busy"); rc=$?
is "$rc $(grep -c 'not planted: page_pool_alloc_netmems\|not planted: page_pool_alloc_netmem,' <<< "$st")" "1 2" \
	"pagepool status: with no name of the take planted, both are holes (exit 1)"
summary
