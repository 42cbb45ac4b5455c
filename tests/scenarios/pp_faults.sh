# SPDX-License-Identifier: GPL-2.0
# pagetrail's pagepool profile against real misuse of the kernel's own
# page_pool: ppmis commits one mistake per mode through the exported API,
# from this shell (the culprit: pid $$), and reports the pfn it misused.
# Each mode must give its anomaly on that pfn by this shell, and one
# `pagetrail diagnose` finding of its class naming the pfn and this shell.
# Then a holder keeps test_run's pages across the pool's destroy: the
# in-flight report must list exactly the pages the kernel counts in flight,
# each with the thread it was handed to.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
. /pt/lib/pp.sh
plan 59

finding() {	# finding FILE CLASS: the first finding line of that class
	grep "^finding [0-9]*: class=$2 " "$1" | head -n1
}

insmod /pt/modules/pagetrail.ko profile=pagepool ring_kb=16384 $(pt_backend) $(pt_record_first)
ok $? "insmod pagetrail profile=pagepool"
PM=/sys/kernel/debug/ppmis
insmod /pt/modules/ppmis.ko
ok $? "ppmis loads"
pp_trace_start
ok $? "the kernel's page_pool tracepoints on"

# fault MODE KIND CLASS: run MODE from this shell, then its anomaly, its
# finding, and the repair (5 assertions).
fault() {
	local mode=$1 kind=$2 class=$3 pfn a f
	echo reset > $PT/control
	echo "run $mode" > $PM/control
	ok $? "ppmis $mode ran"
	cat $PM/report > /tmp/pm.$mode
	sed 's/^/# ppmis: /' /tmp/pm.$mode
	pfn=$(sed -n 's/^misused pfn=\(0x[0-9a-f]*\).*/\1/p' /tmp/pm.$mode | head -n1)
	cp $PT/anomalies /tmp/anomalies
	a=$(anomaly "$kind" "$pfn")
	diag "$mode: ${a:-no $kind anomaly on $pfn}"
	like "$a" " pfn=$pfn .* pid=$$ tgid=$$ comm=sh " "$mode: $kind on the misused pfn $pfn, by this shell"
	pagetrail diagnose > /tmp/d.$mode
	sed 's/^/# /' /tmp/d.$mode
	f=$(finding /tmp/d.$mode "$class")
	is "$(echo "$f" | field pfn) $(echo "$f" | field culprit)" "$pfn sh/$$" \
		"$mode: diagnose $class on $pfn, culprit this shell"
	is "$(grep -c '^finding ' /tmp/d.$mode)" 1 "$mode: one finding, what follows claimed by it"
	echo repair > $PM/control
	ok $? "ppmis $mode repaired"
}

fault double_recycle DOUBLE_ADMIT PP_DOUBLE_RECYCLE
expect_report 'BUG: Bad page state|page dumped because: page_pool leak'
fault put_page_inflight FREE_WHILE_ASSIGNED PP_FOREIGN_FREE
expect_end
fault get_then_take TAKE_ALIASED PP_ALIASED_TAKE
fault wrong_pool ADMIT_WRONG_POOL PP_WRONG_POOL
# The over-release itself is inlined into the caller's puts; pagetrail
# sees it at the next fragment hand-out, before the pool's drain warns.
expect_report 'WARNING: .*page_pool'
fault frag_over_release POOL_REF_UNDERFLOW PP_OVER_RELEASE
expect_end
like "$(anomaly POOL_REF_UNDERFLOW)" " role=unref cause=frag " \
	"frag_over_release: seen at the fragment hand-out (cause frag)"
fault direct_after_destroy CACHE_AFTER_DESTROY PP_STRANDED
# The page sat in the destroyed pool's cache: the destroy is in the report.
like "$(cat /tmp/d.direct_after_destroy)" "pool #[0-9]+ destroy at t=[0-9.]+ by sh/$$: hold=[0-9]+ release=[0-9]+ in flight=1 " \
	"direct_after_destroy: the in-flight report shows the destroy by this shell, 1 in flight"

# Clean use of three pools (cache, ring, fragments) after all that: nothing.
echo reset > $PT/control
echo "run clean" > $PM/control
ok $? "ppmis clean ran"
echo repair > $PM/control
cp $PT/stats /tmp/stats.clean
is "$(kv anomalies) $(kv gaps)" "0 0" "clean: 0 anomalies, 0 gaps"
pagetrail capture -o /tmp/clean.cap > /dev/null
pagetrail decode --from /tmp/clean.cap > /tmp/ev.clean
pagetrail diagnose --from /tmp/clean.cap > /tmp/d.clean
is "$(grep -c '^finding ' /tmp/d.clean)" 0 "clean: no finding"
# ppmis runs the pool's consumer as a driver does outside NAPI: BH off
cmp_ok "$(awk '$7 == "role=take" && $6 == "comm=sh"' /tmp/ev.clean | wc -l)" -ge 400 \
	"clean: ppmis' takes by this shell ($(awk '$7 == "role=take" && $6 == "comm=sh"' /tmp/ev.clean | wc -l))"
is "$(awk '$6 == "comm=sh" && ($7 == "role=take" || $7 == "role=admit") && $NF != "ctx=bh"' /tmp/ev.clean | wc -l)" 0 \
	"clean: each of its takes and recycles made with bottom halves off (ctx=bh)"
# Record first's wide slots, end to end: a fragment page's pool count is
# the kernel's bias (past 32 bits), so each observation of one takes a
# second staging slot. The slots after them still parse (the counts
# balance, no anomaly above), and the wide fields come back whole: the
# count's low half in aux, the compound head equal to the page.
awk '$7 == "role=take" && $6 == "comm=sh" && / aux=0xffffffff /' /tmp/ev.clean > /tmp/ev.wide
if [ -n "$(kv stage_slot_bytes /tmp/stats.clean)" ]; then
	cmp_ok "$(kv stage_wide /tmp/stats.clean)" -gt 0 \
		"clean: fragment pages staged in two slots ($(kv stage_wide /tmp/stats.clean) wide)"
	is "$(kv stage_unaccounted /tmp/stats.clean) $(kv stage_lost /tmp/stats.clean)" "0 0" \
		"clean: observed = interpreted + staged + lost across the wide slots"
else
	skip 2 "record_first=0: no staging slots"
fi
cmp_ok "$(wc -l < /tmp/ev.wide)" -gt 0 \
	"clean: takes of fragment pages carry the bias's low half (aux=0xffffffff: $(wc -l < /tmp/ev.wide))"
is "$(awk '{ p = h = ""; for (i = 1; i <= NF; i++) { if ($i ~ /^pfn=/) p = substr($i, 5); if ($i ~ /^head=/) h = substr($i, 6) } if (p != h) n++ } END { print n + 0 }' /tmp/ev.wide)" 0 \
	"clean: each one's compound head is its own page (head_pfn from the wide slot)"
rmmod ppmis
ok $? "ppmis unloads"

# --- a holder keeps pages in flight across the destroy -----------------
if ! pp_pass_recycles; then
	skip 13 "6.1 releases test_run's XDP_PASS pages at skb build: none stay in flight"
	rmmod pagetrail
	ok $? "pagetrail unloads"
	done_testing
	exit $?
fi
echo reset > $PT/control
pp_trace_clear
pp_holder_run 200
pp_trace_save /tmp/tr.hold
# test_run's pool: the one destroyed with pages in flight (a pool of the
# faults above may still log its last retry in this window)
P=$(grep ' page_pool_release: ' /tmp/tr.hold | grep -v ' inflight=0 ' | head -n1 |
	sed 's/.*page_pool=\([^ ]*\) .*/\1/')
# The kernel's pages in flight at the destroy: held, not released, before
# its first page_pool_release.
awk -v p="$P" '
	/ page_pool_release: / && index($0, "page_pool=" p " ") { exit }
	index($0, "page_pool=" p " ") && / page_pool_state_hold: / { match($0, /pfn=0x[0-9a-f]+/); h[substr($0, RSTART + 4, RLENGTH - 4)] = 1 }
	index($0, "page_pool=" p " ") && / page_pool_state_release: / { match($0, /pfn=0x[0-9a-f]+/); delete h[substr($0, RSTART + 4, RLENGTH - 4)] }
	END { for (x in h) print x }' /tmp/tr.hold | sort > /tmp/k_inflight
kin=$(grep " page_pool_release: page_pool=$P " /tmp/tr.hold | head -n1 | field inflight)
is "$(wc -l < /tmp/k_inflight)" "$kin" "the kernel's trace: $kin pages held, not released, at the destroy"
# reading the live ring consumes it: one capture for both forms
pagetrail capture -o /tmp/hold.cap > /dev/null
pagetrail diagnose --from /tmp/hold.cap > /tmp/d.hold
sed 's/^/# /' /tmp/d.hold | grep -v '^#   pfn' | head -n 20
# the first destroy's block: its header and its pfn lines
awk '/^pool #[0-9]+ destroy / { on = !seen++; if (on) print; next } /^pool #/ { on = 0 } on' /tmp/d.hold > /tmp/rep
like "$(head -n1 /tmp/rep)" "^pool #[0-9]+ destroy at t=[0-9.]+ by ppdrive/[0-9]+: hold=[0-9]+ release=[0-9]+ in flight=$kin .* the records show $kin pages held" \
	"in-flight report: the destroy by ppdrive, $kin in flight, $kin pages shown held"
head -n3 /tmp/rep | sed 's/^/# /'
sed -n 's/^  pfn \(0x[0-9a-f]*\) .*/\1/p' /tmp/rep | sort > /tmp/p_inflight
cmp -s /tmp/k_inflight /tmp/p_inflight
ok $? "in-flight report: the same pfns as the kernel's trace, page by page"
is "$(grep -c '^  pfn .* taken by ppdrive/[0-9]* ' /tmp/rep) $(grep -c " taken by ppdrive/$HP " /tmp/rep)" "$kin 0" \
	"in-flight report: each page taken by the thread that ran the program, not the holder"
is "$(grep -c ' in flight the records do not show' /tmp/rep)" 0 "in-flight report: nothing in flight unaccounted"
pagetrail diagnose --from /tmp/hold.cap --json > /tmp/d.hold.json
# each retry that still waits lists them again: count pages, not lines
is "$(tr -d ' \n' < /tmp/d.hold.json | grep -o '"pfn":"0x[0-9a-f]*","taken":{[^}]*"comm":"ppdrive"' | cut -d'"' -f4 | sort -u | wc -l)" "$kin" \
	"diagnose --json: the same $kin held pages with their taker"
kill $HP
wait $HP
ok $? "holder exits 0 on SIGTERM"
pp_wait_released "$P" 5
ok $? "once the holder let go, a retry freed the pool"
sleep 0.5
cp $PT/stats /tmp/stats
is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats)" "0 0" "holder run: 0 anomalies, 0 gaps"
diag "$(grep '^pp_' /tmp/stats | tr '\n' ' ')"
is "$(kv pp_pools_live /tmp/stats)" 0 "no pool left in the registry"
pp_trace_stop
rmmod pagetrail
ok $? "pagetrail unloads"
done_testing
