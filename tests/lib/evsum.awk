# SPDX-License-Identifier: GPL-2.0
# One pass over pagetrail's events text (positional key=value fields, the
# order of PAGETRAIL_TEXT_FMT), printing key=value facts the scenarios
# assert on. Busybox awk under TCG is slow: everything is computed here once.
function v(i) { return substr($i, index($i, "=") + 1) }
{
	comm = v(6); role = v(7); cause = v(8); pfn = v(9); gen = v(13) + 0
	token = v(14); ref = v(19) + 0; head = v(21); ret = v(24) + 0
	n++
	count["role_" role]++
	count["role_" role "_" cause]++
	if (v(27) != "0") count["gapped"]++
	if (v(28) != "none") count["anomalous"]++
	if (role == "assign") owner[pfn] = token
	if (role == "admit") { admit_gen[pfn] = gen; if (gen > max_gen) max_gen = gen }
	if (role == "insert") {
		if (owner[head] != token) count["insert_token_mismatch"]++
		if (ref < 1 || ret != 0) count["insert_bad"]++
	}
	if (role == "take" && (admit_gen[pfn] != gen || gen < 1)) count["take_gen_mismatch"]++
	if (role == "scrub") {
		if (comm != "nv_mem_pool_scr") count["scrub_off_scrubber"]++
		if (v(11) == "pooled_dirty" && v(12) == "pooled_clean") count["scrub_dirty_to_clean"]++
	}
	if ((role == "assign" || role == "insert" || role == "take") && comm != cuser)
		count["user_role_off_thread"]++
}
END {
	printf "events=%d\nmax_admit_gen=%d\n", n, max_gen
	for (k in count) printf "%s=%d\n", k, count[k]
}
