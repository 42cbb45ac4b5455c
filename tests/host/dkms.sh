#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dkms add + build for both installed Debian kernels, in a private DKMS tree
# (the system's /var/lib/dkms and /usr/src stay untouched).
. "$(dirname "$0")/tap.bash"
out=$(realpath -m "${1:-$BUILD/host-dkms}")
rm -rf "$out"
mkdir -p "$out/tree" "$out/src"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TOP/dkms.conf")
"$TOP/scripts/dkms-source" "$out/src" > /dev/null
# dkms signs what it builds; keep its generated key out of /var/lib/dkms.
export mok_signing_key=$out/mok.key mok_certificate=$out/mok.pub
D=(dkms --dkmstree "$out/tree" --sourcetree "$out/src")

"${D[@]}" add -m pagetrail -v "$ver" > "$out/add.log" 2>&1
ok $? "dkms add pagetrail/$ver"
for k in 6.1 6.12; do
	kv=$(stock_kernel "$k")
	"${D[@]}" build -m pagetrail -v "$ver" -k "$kv" > "$out/build-$k.log" 2>&1
	ok $? "dkms build for $kv"
	[ $? = 0 ] || tail -n 30 "$out/build-$k.log" | sed 's/^/# /'
	ko=$(find "$out/tree/pagetrail/$ver/$kv" -name 'pagetrail.ko*' | head -n1)
	ok $([ -n "$ko" ]; echo $?) "$k: pagetrail.ko built ($(basename "${ko:-none}"))"
done
st=$("${D[@]}" status 2>&1)
for k in 6.1 6.12; do
	grep -qF "pagetrail/$ver, $(stock_kernel $k), x86_64: built" <<< "$st"
	ok $? "dkms status lists the $k build"
done
summary
