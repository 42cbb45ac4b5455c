# SPDX-License-Identifier: GPL-2.0
# The cap on what one probe handler walks (code-review-2 finding 6): a
# handler runs with preemption off, so a walk of an allocation stops at
# nv_walk_max chunks (65,536; 4,096 under PREEMPT_RT) and counts the rest
# by role. Lowered below cuinit's largest allocations (1,516 chunks), no
# admission record lies past the cap, and what pagetrail saw admitted plus
# what it counted as not walked is what nvsim admitted: counted, not lost.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 10

cap=512
insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768 nv_walk_max=$cap
ok $? "nvsim and pagetrail loaded (nv_walk_max=$cap)"
cuinit > /tmp/cuinit.out
ok $? "cuinit ran"
cp $PT/stats /tmp/stats
cp $PT/coverage /tmp/cov
pt_drain
grep -E '^nv_(walk|not_walked)' /tmp/stats >&2
grep '^walk_max=' /tmp/cov >&2
is "$(grep -o '^walk_max=[0-9]*' /tmp/cov)" "walk_max=$cap" "coverage names the cap in force"
cmp_ok "$(kv nv_walks_truncated /tmp/stats)" -gt 0 "walks stopped at the cap"
na=$(kv nv_not_walked_admit /tmp/stats)
na=${na:-0}
cmp_ok "$na" -gt 0 "admission chunks past the cap are counted ($na)"
is "$(($(ev role_admit) + na))" "$(nv chunks_admitted)" \
	"admissions seen + admission chunks not walked == nvsim's chunks admitted"
# Order-0 allocations: a record's idx is its chunk's number.
past=$(awk -v cap=$cap '$7 == "role=admit" && $10 == "order=0" {
	i = substr($18, 5) + 0; if (i >= cap) n++ } END { print n + 0 }' /tmp/ev.txt)
is "$past" 0 "no admission record past chunk $cap of its allocation"
sum=$(sed -n 's/^nv_not_walked_[a-z_]*=//p' /tmp/stats | awk '{ s += $1 } END { print s + 0 }')
is "$(sed -n 's/.* chunks_not_walked=\([0-9]*\).*/\1/p' /tmp/cov)" "$sum" \
	"coverage's chunks_not_walked is the sum of stats' nv_not_walked_<role>"
# Raised past the build's cap at run time: clamped.
echo 4294967295 > /sys/module/pagetrail/parameters/nv_walk_max
cmp_ok "$(sed -n 's/^walk_max=\([0-9]*\).*/\1/p' $PT/coverage)" -le 65536 \
	"nv_walk_max cannot raise the cap past the build's"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
