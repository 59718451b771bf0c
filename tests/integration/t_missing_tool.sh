# A tool that is not installed makes its own cells skip, and the reason
# names the Debian package that has it (what `make deps-all` installs).
. "$(dirname "$0")/lib.sh"
need_root

mkdir "$TMP/bin"	# a PATH with none of the tools
PATH="$TMP/bin" "$TT" list --json >"$TMP/missing.json" 2>"$TMP/err" ||
	fail "list without the tools exited $?: $(cat "$TMP/err")"
python3 - "$TMP/missing.json" <<'PY' || exit 1
import json, sys
want = {"strace": "strace", "strace:count": "strace", "bpftrace": "bpftrace",
        "perf-trace": "linux-perf", "perf-record": "linux-perf", "ltrace": "ltrace",
        "uftrace": "uftrace", "lttng-ust": "lttng-tools"}
got = {t["name"]: t for t in json.load(open(sys.argv[1]))["tracers"]}
bad = 0
for name, pkg in want.items():
    t = got.get(name)
    if not t:
        print(f"FAIL: {name} not listed"); bad = 1; continue
    reason = t.get("reason") or ""
    if t["status"] != "skipped" or f"(Debian package '{pkg}')" not in reason:
        print(f"FAIL: {name}: {t['status']}: {reason!r}, want the package '{pkg}' named"); bad = 1
if got["none"]["status"] != "available":
    print("FAIL: none is not available without the tools"); bad = 1
print("tools missing: each skipped, its package named" if not bad else "")
sys.exit(bad)
PY
