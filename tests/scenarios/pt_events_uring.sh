# SPDX-License-Identifier: GPL-2.0
# One open `events` file read through io_uring with 8 reads in flight:
# io-wq runs them on parallel workers, without the f_pos_lock that
# serialises read(2) on a shared file. Every record still comes out once,
# as one whole line, and no read returns a byte from outside the line it
# hands out (the reader's state is per open file and was unlocked).
. /pt/lib/tap.sh
. /pt/lib/pt.sh
plan 9

insmod /pt/modules/nvsim.ko && pt_load ring_kb=4096
ok $? "pagetrail with a 4 MiB ring per CPU"
for round in 1 2 3; do
	echo attach > $PT/control
	cuinit --gens 2 > /dev/null
	echo detach > $PT/control
	n=$(kv ring_buffered)
	uring_read $PT/events 8 100 > /tmp/ur.out
	rc=$?
	if [ $rc = 77 ]; then
		ok 0 "# SKIP $(cat /tmp/ur.out)"
		ok 0 "# SKIP no io_uring"
		continue
	fi
	diag "round $round: $n records; $(cat /tmp/ur.out)"
	is "$rc $(field bad < /tmp/ur.out)" "0 0" "round $round: no byte from outside a line"
	is "$(field lines < /tmp/ur.out)" "$n" "round $round: each of the $n records once, as a line"
done
is "$(kv ring_buffered)" 0 "all consumed"
rmmod pagetrail && nvsim_rmmod
ok $? "unloaded"
done_testing
