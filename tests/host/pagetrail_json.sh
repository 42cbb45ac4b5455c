#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every --json output of the pagetrail command, and evidence.json, on every
# fixture: one object with "format" and "source", valid against its schema
# (tools/pagetrail/schema/SUB.json, with common.json's $defs merged in);
# no escaped slash and no "-" standing for a missing value anywhere.
. "$(dirname "$0")/tap.bash"
out=${1:-$BUILD/host-pagetrail_json}
rm -rf "$out"
mkdir -p "$out/json"
PT=$BUILD/progs/pagetrail
FX=$TOP/tests/host/fixtures
DC=$TOP/tests/fixtures/devcg

make -s -C "$TOP" "$PT" > "$out/build.log" 2>&1
ok $? "pagetrail builds"
gcc -O2 -Wall -Wextra -Werror -I"$TOP/include" -I"$TOP/tools/pagetrail" -o "$out/ptfixture" \
	"$TOP/tests/host/ptfixture.c" "$TOP/tools/pagetrail/records.c"
ok $? "ptfixture builds"
python3 -c 'import jsonschema' 2> /dev/null
ok $? "python3 jsonschema is installed (scripts/setup: python3-jsonschema)"

n=0
emit() {	# emit SUB NAME ARGS...: SUB's --json output into json/SUB.NAME.json
	local sub=$1 name=$2
	shift 2
	"$PT" "$sub" "$@" --json > "$out/json/$sub.$name.json" 2> "$out/json/$sub.$name.err"
	n=$((n + 1))
}
for f in "$FX"/*.fx; do
	b=$(basename "$f" .fx)
	"$out/ptfixture" "$f" "$out/$b" || echo "# fixture $f"
	for sub in status anomalies diagnose; do
		emit $sub "$b" --from "$out/$b"
	done
	emit history "$b" 0x11a40 --from "$out/$b"
	"$PT" evidence -o "$out/ev-$b" --from "$out/$b" 2> /dev/null
	cp "$out/ev-$b/evidence.json" "$out/json/evidence.$b.json"
	n=$((n + 1))
done
PAGETRAIL_DEBUGFS=$out/foreign "$PT" capture -o "$out/foreign.cap" 2> /dev/null
for sub in status anomalies diagnose; do
	emit $sub capture --from "$out/foreign.cap"
	emit $sub trace --trace "$FX/stale_nozero.dat"
done
emit history trace 0x866c --trace "$FX/stale_nozero.dat"
for c in r3-129 r2-lxc pve-devn pve-base-only lxc-optional sem-devpath; do
	emit devices "$c" --proc-devices "$DC/proc-devices.r3-after" --lxc-config "$DC/$c.conf"
done
emit devices stale-list --proc-devices "$DC/proc-devices.r3-after" --devices-list "$DC/stale-devices.list"
emit devices host
emit denials file --file "$DC/denials.txt"
printf 'devcg=1 major=-1 denials=0 kept=0 ring_only=0 no_cgroup=0 no_name=0 source_unknown_marks=0\n' > "$out/none.txt"
emit denials none --file "$out/none.txt"

res=$(cd "$out/json" && python3 - "$TOP/tools/pagetrail/schema" *.json 2>&1 <<'PY'
import json, sys, os
import jsonschema
sd = sys.argv[1]
common = json.load(open(os.path.join(sd, "common.json")))["$defs"]
bad = 0
def walk(v, path, errs):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, path + "." + k, errs)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (path, i), errs)
    elif v == "-":
        errs.append('"-" at ' + path)
for f in sys.argv[2:]:
    sub = f.split(".")[0]
    raw = open(f).read()
    errs = []
    if "\\/" in raw:
        errs.append("escaped slash")
    try:
        doc = json.loads(raw)
    except ValueError as e:
        print("%s: not JSON: %s" % (f, e)); bad += 1; continue
    schema = json.load(open(os.path.join(sd, sub + ".json")))
    schema.setdefault("$defs", {}).update(common)
    v = jsonschema.Draft202012Validator(schema)
    errs += ["%s: %s" % ("/".join(map(str, e.absolute_path)), e.message[:200]) for e in v.iter_errors(doc)]
    walk(doc, "$", errs)
    if not isinstance(doc, dict) or "format" not in doc or "source" not in doc:
        errs.append("not an object with format and source")
    for e in errs[:3]:
        print("%s: %s" % (f, e))
    bad += bool(errs)
print("bad=%d of %d" % (bad, len(sys.argv) - 2))
PY
)
is "$(tail -n1 <<< "$res")" "bad=0 of $n" "every JSON output ($n) valid against its schema, no escaped slash, no \"-\" for a missing value"
[ "$(tail -n1 <<< "$res")" = "bad=0 of $n" ] || head -n 20 <<< "$res" | sed 's/^/#   /'
is "$(ls "$TOP"/tools/pagetrail/schema/*.json | wc -l)" 8 "a schema per JSON-writing subcommand (7) and their common definitions"
summary
