# SPDX-License-Identifier: GPL-2.0
# make demo: R1 reproduced and explained. cuinit drives nvsim like CUDA
# context init; a foreign kernel thread drops a reference on a pooled page;
# the next generation's mmap fails with EAGAIN. The report between the
# PT-REPORT markers is what scripts/demo prints; the TAP lines check that
# the story it tells is the one that happened.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 6

say() { echo "$*" >> /tmp/report; }
insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768 2>/dev/null
ok $? "nvsim and pagetrail loaded ($(kv state $PT/control) to $(kv target $PT/control))"
echo 1 > /sys/module/nvsim/parameters/fault_foreign_put
cuinit --foreign --seed 3 > /tmp/cuinit.out
echo 0 > /sys/module/nvsim/parameters/fault_foreign_put
pfn=$(grep '^foreign ' /tmp/cuinit.out | field pfn)
cat $PT/anomalies > /tmp/anomalies
cp $PT/stats /tmp/stats
cp $PT/coverage /tmp/coverage
pt_drain

say "== What the user saw (cuinit: the CUDA context-init pattern of R1) =="
grep '^mmap .*rc=-1' /tmp/cuinit.out | sed 's/^/  /' >> /tmp/report
dmesg | grep 'NVRM:' | sed 's/^/  kernel: /' >> /tmp/report
say ""
say "== The return chain (pagetrail:map) =="
grep ' role=map ' /tmp/ev.txt | grep ' ret=-' | awk '
	function sdec(h,   i, n) {	# aux holds the helper return as 32-bit hex
		n = 0; h = substr(h, 3)
		for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return n > 2147483647 ? n - 4294967296 : n }
	{ for (i = 1; i <= NF; i++) { k = substr($i, 1, index($i, "=") - 1); f[k] = substr($i, index($i, "=") + 1) }
	  printf "  vm_insert_page(pfn %s) = %s  ->  nvidia_mmap_helper = %d  ->  nvidia_mmap = %s  (%s/%s)\n",
		f["pfn"], f["inner_ret"], sdec(f["aux"]), f["ret"], f["comm"], f["pid"] }' >> /tmp/report
say ""
say "== The page: every transition of pfn $pfn, oldest first (flight recorder) =="
say "  seq     time(ms)  thread               cpu role    cause    state                         gen alloc  idx  ref  ret  anomaly"
grep " pfn=$pfn " /tmp/ev.txt | awk -v t0="$(head -n1 /tmp/ev.txt | sed 's/.* ts=\([0-9]*\).*/\1/')" '
	{ for (i = 1; i <= NF; i++) { k = substr($i, 1, index($i, "=") - 1); f[k] = substr($i, index($i, "=") + 1) }
	  if (f["role"] == "map") { f["from"] = "(mmap returns)"; f["to"] = ""; f["gen"] = f["alloc"] = f["ref"] = "-"; f["idx"] = "-" }
	  printf "  %-7s %9.3f  %-20s %3s %-7s %-8s %-29s %3s %5s %4s %4s %4s  %s\n", f["seq"], (f["ts"] - t0) / 1e6,
		f["comm"] "/" f["pid"], f["cpu"], f["role"], f["cause"], f["from"] "->" f["to"], f["gen"],
		f["alloc"], f["idx"], f["ref"], f["ret"], f["anomaly"] }' >> /tmp/report
say ""
say "== Anomalies, each with the chunk's history and the culprit's stack =="
sed 's/^/  /' /tmp/anomalies >> /tmp/report
say "== Coverage: what pagetrail saw and did not see =="
awk '/^probe=/ { printf "  %s\n", $0 }' /tmp/coverage >> /tmp/report
grep -E '^(ring_produced|ring_lost|ring_unaccounted|gaps|anomalies|tracked|nv_inserts|nv_insert_failed|nv_mmaps|nv_mmap_failed)=' \
	/tmp/stats | sed 's/^/  /' >> /tmp/report
say ""
say "== Findings for pfn $pfn =="
a=$(anomaly FREE_WHILE_POOLED "$pfn"); i=$(anomaly INSERT_ZERO_REF "$pfn")
adm=$(grep " role=admit .*pfn=$pfn " /tmp/ev.txt | head -n1)
say "  1. admitted to the pool, generation $(echo "$adm" | field gen), by $(echo "$adm" | field comm)/$(echo "$adm" | field pid) (allocation #$(echo "$adm" | field alloc))"
say "  2. freed to the buddy allocator while still pooled by $(echo "$a" | field comm)/$(echo "$a" | field pid): FREE_WHILE_POOLED (stack above)"
say "  3. taken back out of the pool by $(echo "$i" | field comm) for allocation #$(echo "$i" | field alloc) (previous owner #$(echo "$i" | field prev_alloc))"
say "  4. vm_insert_page saw refcount $(echo "$i" | field ref) and returned $(echo "$i" | field ret); nvidia_mmap returned -EAGAIN"
say "  The driver handed out a page it no longer owned: a lifetime bug outside the pool (Z8), not a pool race."

echo "PT-REPORT-BEGIN"
cat /tmp/report
echo "PT-REPORT-END"
isnt "$a" "" "the foreign free of $pfn is an anomaly"
isnt "$i" "" "the zero-refcount insert of $pfn is an anomaly"
is "$(echo "$a" | field comm)" nvsim_foreign "named the foreign thread"
is "$(echo "$i" | field ref)" 0 "refcount 0 at insert"
rmmod pagetrail && rmmod nvsim
ok $? "unloaded cleanly"
done_testing
