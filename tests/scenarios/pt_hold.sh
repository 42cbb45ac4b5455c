# SPDX-License-Identifier: GPL-2.0
# What a driver call holds until it returns (module/hold.c, record first).
# An allocation whose fresh chunk fails part-way releases, inside its own
# call (nv_free_system_pages), the chunks it already assigned: the held
# assignments must be interpreted before that release, so each released
# chunk leaves the state its assignment put it in. The mmap helper's
# inserts, observed at their entry without a return probe, come out each
# once, with the page's refcount, in the order the helper made them.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
. /pt/lib/nvsim.sh
plan 13

insmod /pt/modules/nvsim.ko && pt_load ring_kb=32768
ok $? "nvsim and pagetrail loaded"
# Nothing pooled yet: big0's 1516 chunks are all fresh, and the 40th fails.
echo 40 > $P/fault_fresh_fail
cuinit --gens 1 --drain > /tmp/c1.out
is "$(nv fresh_failed)" 1 "nvsim: one fresh chunk was not had"
failed=$(grep '^alloc .* rc=-1 ' /tmp/c1.out)
is "$(echo "$failed" | wc -l) $(echo "$failed" | field name)" "1 big0" \
	"cuinit: big0's allocation failed, the others went on"
cp $PT/stats /tmp/stats
pt_drain
# nv_alloc_set_page inlined (610-inline): assignments are read from the
# page table at the allocation's successful return only, so a failing
# allocation's chunks are first seen at their release: gaps, said so.
want_assigned=39 want_gaps=0
case ",$(kv fallbacks $PT/control)," in *,nv_alloc_set_page,*) want_assigned=0 want_gaps=39 ;; esac
is "$(kv anomalies /tmp/stats) $(kv gaps /tmp/stats)" "0 $want_gaps" \
	"0 anomalies, $want_gaps gaps (fallbacks=$(kv fallbacks $PT/control))"
is "$(kv stage_held_dropped /tmp/stats) $(kv stage_unheld /tmp/stats)" "0 0" \
	"nothing held was forgotten, every call found a buffer"
# big0's 39 assigned chunks, released by its own failing call: the first
# release records of those pfns (seq order) leave "assigned".
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["role"] == "assign" && f["alloc"] == 1) { a[f["pfn"]] = f["seq"]; na++ }
	if ((f["role"] == "admit" || f["role"] == "free") && (f["pfn"] in a) && !(f["pfn"] in r)) {
		r[f["pfn"]] = 1; nr++
		if (f["seq"] < a[f["pfn"]] || f["from"] != "assigned") bad++
	} }
	END { print na + 0, nr + 0, bad + 0 }' /tmp/ev.txt > /tmp/rel
diag "allocation #1: assigned, released, released before or outside its assignment: $(cat /tmp/rel)"
is "$(cut -d' ' -f1,2 /tmp/rel)" "$want_assigned $want_assigned" \
	"allocation #1 (big0): $want_assigned chunks seen assigned, each released by the failing call"
is "$(cut -d' ' -f3 /tmp/rel)" 0 "every release comes after its chunk's assignment and leaves it assigned"
# Inserts: every mapped page once, refcount >= 1, ret 0, in page order
# within each mmap (the helper inserts page_table in order).
want=$(awk '/^mmap .* rc=0 / { sub(/.*pages=/, ""); n += $1 } END { print n + 0 }' /tmp/c1.out)
is "$(ev role_insert)" "$want" "every mapped page's insert was recorded ($want)"
is "$(ev insert_bad)" 0 "every insert saw refcount >= 1 and returned 0"
is "$(ev insert_token_mismatch)" 0 "every inserted page belongs to its allocation's chunk"
seen=$(sed -n 's/^probe=vm_insert_page .* entries=\([0-9]*\) returns=[0-9]* at_entry=\([0-9]*\) .*/\1 \2/p' $PT/coverage)
cmp_ok "${seen#* }" -gt $((want * 9 / 10)) \
	"most inserts observed whole at their entry, no return probe (entries, at entry: $seen)"
# Within one mmap the helper inserts page_table in order: the chunk index
# (from its assignment) never goes back between two of one mmap's inserts;
# the mmap's own record (role=map, at nvidia_mmap's return) ends it.
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["role"] == "assign") ix[f["token"] "/" f["pfn"]] = f["idx"] + 0
	if (f["role"] == "map") { last = -1; next }
	if (f["role"] != "insert") next
	k = f["token"] "/" f["head"]
	if (!(k in ix)) { unknown++; next }
	if (ix[k] < last) back++
	last = ix[k]; n++ }
	END { print n + 0, back + 0, unknown + 0 }' /tmp/ev.txt > /tmp/order
diag "inserts placed by their chunk's index, gone back, chunk unknown: $(cat /tmp/order)"
is "$(cat /tmp/order)" "$want 0 0" "each mmap's inserts come out in the order the helper made them"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
