# SPDX-License-Identifier: GPL-2.0
# The flight recorder's loss accounting is exact in both modes: a ring far
# too small for a CUDA-init run drops (stop-on-full) or overwrites, and
# produced = read + buffered + lost holds; the records read show exactly
# as many sequence gaps as the ring says it lost. Counters are compared
# after "detach", so that nothing (the reading tools' own page
# allocations included) adds records in between.
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 13

# Staging large enough that the ring, not record first's staging, is what
# a CUDA-init run overflows.
insmod /pt/modules/nvsim.ko && pt_load ring_kb=64 overwrite=0 stage_kb=16384
ok $? "pagetrail with a 64 KiB ring per CPU, stop-on-full"
is "$(kv overwrite $PT/control)" 0 "control shows overwrite=0"
cuinit --gens 1 --drain > /dev/null
echo detach > $PT/control
cp $PT/stats /tmp/stats
cmp_ok "$(kv ring_dropped_full /tmp/stats)" -gt 0 "stop-on-full: new records were dropped"
is "$(kv ring_overwritten /tmp/stats)" 0 "stop-on-full: nothing overwritten"
is "$(kv ring_unaccounted /tmp/stats)" 0 "stop-on-full: produced = read + buffered + lost"
cat $PT/events.bin > /tmp/ev.bin
pagetrail decode --check /tmp/ev.bin > /dev/null 2> /tmp/dec.err
is "$(field records < /tmp/dec.err)" "$(kv ring_buffered /tmp/stats)" "every buffered record was read once"
is "$(kv ring_read)" "$(kv ring_buffered /tmp/stats)" "and counted as read"

echo overwrite=1 > $PT/control && echo reset > $PT/control && echo attach > $PT/control
is "$(kv overwrite $PT/control) $(kv state $PT/control)" "1 attached" \
	"switched to overwrite at run time, attached again"
cuinit --gens 1 --drain > /dev/null
echo detach > $PT/control
cp $PT/stats /tmp/stats
cmp_ok "$(kv ring_overwritten /tmp/stats)" -gt 0 "overwrite: the oldest records were replaced"
is "$(kv ring_unaccounted /tmp/stats)" 0 "overwrite: produced = read + buffered + lost"
cat $PT/events.bin > /tmp/ev.bin
pagetrail decode --check /tmp/ev.bin > /dev/null 2> /tmp/dec.err
diag "$(cat /tmp/dec.err) $(grep ^ring_ /tmp/stats | tr '\n' ' ')"
# Seqs go on across a reset (the reset's base cancels out): missing =
# before the first + inside + after the last.
missing=$(( $(field first_seq < /tmp/dec.err) - 1 + $(field seq_gaps < /tmp/dec.err) +
	$(kv ring_produced /tmp/stats) - $(field last_seq < /tmp/dec.err) ))
is "$missing" "$(kv ring_lost /tmp/stats)" \
	"sequence numbers missing from what was read == records the ring says it lost"

# The text file hands out whole lines: a reader taking fixed-size chunks
# (dd, a log shipper) never gets a line cut in two.
echo attach > $PT/control
cuinit --gens 1 > /dev/null
echo detach > $PT/control
exec 5< $PT/events
cut=0 reads=0
while [ $reads -lt 20 ]; do
	dd bs=1000 count=1 <&5 > /tmp/chunk 2> /dev/null
	[ -s /tmp/chunk ] || break
	[ "$(tail -c 1 /tmp/chunk | od -An -tx1 | tr -d ' ')" = 0a ] || cut=$((cut + 1))
	reads=$((reads + 1))
done
exec 5<&-
is "$cut $reads" "0 20" "events read 1000 bytes at a time: 20 reads, each ending at a line's end"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
