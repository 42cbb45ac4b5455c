# SPDX-License-Identifier: GPL-2.0
# nv_alloc_t, nvidia_pte_t, nv_page_pool_t and nv_page_pool_entry_t reach a
# tracer with the driver's names and offsets: through nvsim's BTF
# (/sys/kernel/btf/nvsim, kernels with module BTF; run with -t bpftool) and
# through the module's DWARF (run with -t pahole).
. /pt/lib/tap.sh
skip() { echo "ok $((_tap_n += 1)) - $1 # SKIP $2"; }

# btf_off STRUCT MEMBER: bits_offset of MEMBER in the raw BTF dump.
btf_off() {
	awk -v s="$1" -v m="'$2'" '
		/^\[/ { inside = ($2 == "STRUCT" && $3 == "\x27" s "\x27") ; next }
		inside && $1 == m { for (i = 2; i <= NF; i++) if ($i ~ /^bits_offset=/) { sub("bits_offset=", "", $i); print $i } }
	' /tmp/btf.txt
}
btf_size() { grep -E "^\[[0-9]+\] STRUCT '$1' size=" /tmp/btf.txt | sed 's/.*size=\([0-9]*\).*/\1/'; }
# The anonymous struct behind a typedef.
btf_typedef_target() {
	id=$(grep -E "^\[[0-9]+\] TYPEDEF '$1' " /tmp/btf.txt | sed 's/.*type_id=\([0-9]*\).*/\1/')
	grep -E "^\[$id\] " /tmp/btf.txt
}
# dwarf_off TYPE MEMBER: byte offset from pahole's layouts in /tmp/dwarf.txt.
# A block is named by its struct tag, or by the typedef name after "}".
dwarf_off() {
	# A member line: TYPE NAME; /* OFFSET SIZE */, the name maybe after
	# "*" and before __attribute__((...)) (DWARF 5 keeps alignments).
	awk -v t="$1" -v m="$2" '
		/^(typedef )?struct .*\{$/ { n = 0; tag = ($1 == "struct") ? $2 : $3; next }
		/^}/ {
			name = $2; sub(";", "", name)
			if (tag == t || name == t)
				for (j = 1; j <= n; j++) {
					k = split(body[j], f, " ")
					for (i = 1; i < k; i++) {
						nm = f[i]; sub(/;$/, "", nm); sub(/^\*+/, "", nm)
						if (nm != m || (f[i] !~ /;$/ && f[i + 1] !~ /^__attribute__/))
							continue
						for (x = i + 1; x < k; x++) if (f[x] == "/*") { print f[x + 1]; exit }
					}
				}
			next
		}
		{ body[++n] = $0 }
	' /tmp/dwarf.txt
}

plan 19
insmod /pt/modules/nvsim.ko
ok $? "insmod nvsim"

if [ -r /sys/kernel/btf/nvsim ] && command -v bpftool > /dev/null; then
	bpftool btf dump -B /sys/kernel/btf/vmlinux file /sys/kernel/btf/nvsim > /tmp/btf.txt
	ok $? "bpftool reads /sys/kernel/btf/nvsim"
	for t in nv_alloc_t nvidia_pte_t nv_page_pool_t nv_page_pool_entry_t; do
		grep -qE "^\[[0-9]+\] TYPEDEF '$t' " /tmp/btf.txt
		ok $? "BTF: typedef $t"
	done
	is "$(btf_size nv_alloc_s)" 112 "BTF: struct nv_alloc_s is 112 bytes"
	is "$(btf_off nv_alloc_s usage_count) $(btf_off nv_alloc_s flags) $(btf_off nv_alloc_s page_table)" \
		"128 192 384" "BTF: usage_count@16 flags@24 page_table@48"
	is "$(btf_off nv_alloc_flags_s pool)" 11 "BTF: flags.pool is bit 11 of flags (byte 25 bit 3)"
	is "$(btf_size nvidia_pte_s) $(btf_off nvidia_pte_s virt_addr)" "16 64" "BTF: nvidia_pte_s 16 bytes, virt_addr@8"
	like "$(btf_typedef_target nv_page_pool_entry_t)" "STRUCT '\(anon\)' size=24" "BTF: nv_page_pool_entry_t is an anonymous 24-byte struct"
	is "$(btf_off nv_page_pool_t dirty_list) $(btf_off nv_page_pool_t scrubber_queue)" "128 256" \
		"BTF: dirty_list@16 scrubber_queue@32"
	diag "BTF nv_page_pool_t: size $(btf_size nv_page_pool_t) node_id@$(($(btf_off nv_page_pool_t node_id) / 8)) lock@$(($(btf_off nv_page_pool_t lock) / 8))"
else
	n=0
	for d in reader nv_alloc_t nvidia_pte_t nv_page_pool_t nv_page_pool_entry_t size offsets pool-bit pte entry pool; do
		skip "BTF $d" "no /sys/kernel/btf/nvsim or no bpftool (6.1 has no module BTF)"
	done
fi

if command -v pahole > /dev/null; then
	pahole -C nv_alloc_s,nv_alloc_flags_s,nvidia_pte_s,nv_page_pool_t,nv_page_pool_entry_t \
		/pt/modules/nvsim.ko > /tmp/dwarf.txt
	is "$(dwarf_off nv_alloc_s usage_count) $(dwarf_off nv_alloc_s page_table) $(dwarf_off nv_alloc_s dma_handle)" \
		"16 48 104" "DWARF: nv_alloc_s usage_count@16 page_table@48 dma_handle@104"
	like "$(grep 'pool:1;' /tmp/dwarf.txt)" '1: 3 ' "DWARF: flags.pool at byte 1 bit 3 of flags"
	is "$(dwarf_off nvidia_pte_s phys_addr) $(dwarf_off nvidia_pte_s virt_addr)" "0 8" "DWARF: nvidia_pte_s"
	is "$(dwarf_off nv_page_pool_entry_t virt_addr) $(dwarf_off nv_page_pool_entry_t list_node)" "0 8" \
		"DWARF: nv_page_pool_entry_t virt_addr@0 list_node@8"
	is "$(dwarf_off nv_page_pool_t clean_list) $(dwarf_off nv_page_pool_t dirty_list) $(dwarf_off nv_page_pool_t scrubber_queue)" \
		"0 16 32" "DWARF: nv_page_pool_t lists and queue"
	pahole -C nv_alloc_t /pt/modules/nvsim.ko | grep -q '^typedef struct nv_alloc_s nv_alloc_t;'
	ok $? "DWARF: typedef nv_alloc_t names struct nv_alloc_s"
	diag "DWARF nv_page_pool_t: node_id@$(dwarf_off nv_page_pool_t node_id) pages_owned@$(dwarf_off nv_page_pool_t pages_owned) lock@$(dwarf_off nv_page_pool_t lock) shrinker@$(dwarf_off nv_page_pool_t shrinker)"
else
	for d in nv_alloc_s flags.pool nvidia_pte_s entry pool nv_alloc_t; do
		skip "DWARF $d" "no pahole in the initramfs (run with -t pahole)"
	done
fi
rmmod nvsim
ok $? "rmmod nvsim"
done_testing
