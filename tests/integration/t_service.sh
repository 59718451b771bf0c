# The systemd units (contrib/systemd, shipped by the Debian package):
# systemd-analyze verify accepts both, in a root laid out as `make install
# PREFIX=/usr` installs, with the man page their Documentation= names, and
# prints nothing. Then the service's ExecStart, as systemd would run it
# without a running systemd (tests/unit_exec.py: the unit's Environment= and
# EnvironmentFile= read as systemd reads them, its capability bounding set,
# no_new_privs and umask applied, the installed paths mapped into $TMP):
# - the shipped plan file is tracetax's default plan;
# - a run records one row in the store named by /etc/default/tracetax and
#   writes tracetax.prom, readable by another user (node_exporter's), whose
#   cells are the store's;
# - a run that meets another run waits for the lock (TRACETAX_WAIT), then runs;
# - a run that finds the box disturbed exits with a code of
#   SuccessExitStatus=, and the store and the textfile say disturbed.
. "$(dirname "$0")/lib.sh"
need_root
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
UNITS=$ROOT/contrib/systemd
command -v systemd-analyze >/dev/null || skip "no systemd-analyze (Debian: systemd)"
command -v setpriv >/dev/null || skip "no setpriv (Debian: util-linux)"
command -v man >/dev/null || skip "no man (Debian: man-db)"
[ -d /lib/systemd/system ] || skip "no /lib/systemd/system: systemd's own units, for verify"
[ -x "$B/tests/tt-attach" ] || fail "no $B/tests/tt-attach"
san=
case $B in *build-san*) san=SAN=1 ;; esac

# --- systemd-analyze verify, offline, in an installed root
V=$TMP/verify
make --no-print-directory -C "$ROOT" $san install DESTDIR="$V" PREFIX=/usr >"$TMP/make.out" 2>&1 ||
	fail "make install exited $?: $(cat "$TMP/make.out")"
mkdir -p "$V/lib/systemd" "$V/etc/default"
cp -a /lib/systemd/system "$V/lib/systemd/"
cp "$UNITS/tracetax-measure.service" "$UNITS/tracetax-measure.timer" "$V/lib/systemd/system/"
cp "$UNITS/tracetax.default" "$V/etc/default/tracetax"
MANPATH=$V/usr/share/man systemd-analyze verify --root="$V" \
	tracetax-measure.service tracetax-measure.timer >"$TMP/verify.out" 2>&1; rc=$?
[ "$rc" = 0 ] && [ ! -s "$TMP/verify.out" ] || fail "systemd-analyze verify: exit $rc: $(cat "$TMP/verify.out")"
echo "systemd-analyze verify tracetax-measure.service tracetax-measure.timer: exit 0, no output"
grep -q '^RandomizedDelaySec=' "$UNITS/tracetax-measure.timer" || fail "the timer has no RandomizedDelaySec"
grep -q '^OnCalendar=daily' "$UNITS/tracetax-measure.timer" || fail "the timer is not daily"
rm -rf "$V"

# --- the installed system's paths, in $TMP/root
chmod 711 "$TMP"	# node_exporter's user must reach the textfile in it
R=$TMP/root
mkdir -p "$R/etc/default" "$R/etc/tracetax" "$R/var/lib/prometheus/node-exporter"
install -d -m 700 "$R/var/lib/tracetax"		# StateDirectory=, StateDirectoryMode=
cp "$UNITS/tracetax.default" "$R/etc/default/tracetax"
TEXTFILE=$R/var/lib/prometheus/node-exporter
STORE=$R/var/lib/tracetax/results.db

# the shipped plan is the default plan: the same cells as no plan
"$TT" run --plan "$UNITS/plan" --dry-run --no-store 2>&1 | grep -E '^ +[0-9]+ +[a-z]' >"$TMP/plan.cells"
"$TT" run --dry-run --no-store 2>&1 | grep -E '^ +[0-9]+ +[a-z]' >"$TMP/default.cells"
[ -s "$TMP/default.cells" ] && cmp -s "$TMP/plan.cells" "$TMP/default.cells" ||
	fail "the shipped plan is not the default plan: $(diff "$TMP/plan.cells" "$TMP/default.cells" | head)"
echo "the shipped plan: the default plan, $(wc -l <"$TMP/plan.cells") cells"

# unit_exec: ExecStart's argv, environment and exit codes, as JSON
unit() {
	python3 "$ROOT/tests/unit_exec.py" "$UNITS/tracetax-measure.service" "$R" \
		/usr/bin/tracetax="$(cd "$B" && pwd)/tracetax" /etc="$R/etc" /var/lib="$R/var/lib" >"$TMP/unit.json" ||
		fail "cannot read the unit's ExecStart"
}
unit
echo "ExecStart: $(json_get "$TMP/unit.json" '" ".join(d["argv"])')"
json_get "$TMP/unit.json" 'd["env"]["TRACETAX_DB"]' | grep -qx "$STORE" ||
	fail "the service's store is not /var/lib/tracetax/results.db: $(cat "$TMP/unit.json")"

# exec_start OUT [COMMAND...]: the service's run (or COMMAND), as systemd
# starts it: only the unit's environment, its capabilities, no_new_privs
# and umask, and ProtectSystem=strict's read-only file system (but the
# unit's writable paths: tests/protect_system.sh); its exit code
exec_start() {
	local out=$1
	shift
	python3 - "$TMP/unit.json" "$ROOT/tests/protect_system.sh" "$@" >"$out" 2>&1 <<'PY'
import json, os, subprocess, sys
u = json.load(open(sys.argv[1]))
pre = []
if u["protect_system"] == "strict":
    pre += ["unshare", "--mount", "--propagation", "private", sys.argv[2]] + u["writable"] + ["--"]
pre += ["setpriv"]
if u["drop_caps"]:
    pre += ["--bounding-set", ",".join("-" + c for c in u["drop_caps"])]
if u["no_new_privs"]:
    pre += ["--no-new-privs"]
os.umask(int(u["umask"], 8))
os.chdir("/")	# WorkingDirectory= unset: /
# the unit's environment, and the harness's sanitizer options (make asan: its
# suppressions and full unwinding), which are the test's, not the unit's
env = dict(u["env"])
env.update({k: v for k, v in os.environ.items() if k in ("ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS")})
sys.exit(subprocess.run(pre + (sys.argv[3:] or u["argv"]), env=env, stdin=subprocess.DEVNULL).returncode)
PY
}
success() { json_get "$TMP/unit.json" "int($1 in d['success'])" | grep -qx 1; }

# --- audit:* under the service's hardening: ProtectSystem=strict leaves /run
# read-only (no state file for `tracetax cleanup`), CapabilityBoundingSet=
# drops CAP_AUDIT_WRITE (no marker to end a run's records). The cells skip
# with the reason, before anything of the box's audit changes: `list` asks
# each tracer that, and runs none (audit is never enabled on this host)
[ "$(json_get "$TMP/unit.json" 'd["protect_system"]')" = strict ] || fail "the unit has no ProtectSystem=strict"
json_get "$TMP/unit.json" '" ".join(d["drop_caps"])' | grep -qw audit_write || fail "the unit keeps CAP_AUDIT_WRITE"
"$TT" list --json >"$TMP/list0.json" 2>"$TMP/list0.err" || fail "list: $(cat "$TMP/list0.err")"
exec_start "$TMP/list1.out" "$(cd "$B" && pwd)/tracetax" list --json; rc=$?
[ "$rc" = 0 ] || fail "list under the unit: exit $rc: $(cat "$TMP/list1.out")"
python3 - "$TMP/list0.json" "$TMP/list1.out" <<'PY' || fail "audit:* under the service's hardening"
import json, sys
host = {t["name"]: t for t in json.load(open(sys.argv[1]))["tracers"]}
# the unit's output has its stderr too (a wait for the lock): the document follows
out = open(sys.argv[2]).read()
unit = {t["name"]: t for t in json.JSONDecoder().raw_decode(out[out.index("{"):])[0]["tracers"]}
audit = [n for n in unit if n.startswith("audit:")]
if not audit:
    sys.exit("no audit:* tracer listed")
for n in audit:
    t = unit[n]
    if t["status"] == "available":
        sys.exit(f"{n}: available under ProtectSystem=strict")
    # where the host itself allows it, the reason is the unit's
    if host[n]["status"] == "available" and "'/run' is not writable here" not in t["reason"]:
        sys.exit(f"{n}: {t['reason']}")
print(f"under the unit: {len(audit)} audit:* tracers skipped: {unit[audit[0]]['reason']}")
PY
# CAP_AUDIT_WRITE alone: the cells with our auditd (the marker) skip, the others not for it
setpriv --bounding-set -audit_write "$TT" list --json >"$TMP/list2.json" 2>"$TMP/list2.err" ||
	fail "list without CAP_AUDIT_WRITE: $(cat "$TMP/list2.err")"
python3 - "$TMP/list0.json" "$TMP/list2.json" <<'PY' || fail "audit:* without CAP_AUDIT_WRITE"
import json, sys
host = {t["name"]: t for t in json.load(open(sys.argv[1]))["tracers"]}
capless = {t["name"]: t for t in json.load(open(sys.argv[2]))["tracers"]}
seen = 0
for n, t in capless.items():
    if not n.startswith("audit:") or host[n]["status"] != "available":
        continue
    marker = n.startswith(("audit:rule/", "audit:rules"))
    if marker and (t["status"] == "available" or "no CAP_AUDIT_WRITE" not in t["reason"]):
        sys.exit(f"{n}: {t['status']} {t['reason']}")
    if not marker and t["status"] != "available":
        sys.exit(f"{n} needs no marker, yet: {t['reason']}")
    seen += 1
print(f"without CAP_AUDIT_WRITE: {seen} audit:* tracers as they should be" if seen else
      "the host allows no audit:* tracer: nothing more to see")
PY
echo "audit:* under the unit: skipped with the reason, none run"

# --- a run: one store row, the textfile, readable by node_exporter's user
cat >"$R/etc/tracetax/plan" <<'EOF'
tracers = none, bpf:tp/count, perf:count
reps = 4
run_ms = 30
EOF
exec_start "$TMP/run1.out"; rc=$?
success "$rc" || fail "the service failed: exit $rc: $(cat "$TMP/run1.out")"
[ -s "$STORE" ] || fail "no store at $STORE: $(cat "$TMP/run1.out")"
sqlite3() { python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join(map(str, r)))' "$STORE" "$1"; }
[ "$(sqlite3 'SELECT count(*) FROM runs')" = 1 ] || fail "store: want 1 run, have $(sqlite3 'SELECT count(*) FROM runs')"
[ "$(sqlite3 "SELECT group_concat(tracer, ',') FROM (SELECT tracer FROM cells WHERE run_id = 1 ORDER BY tracer)")" = \
	"bpf:tp/count,none,perf:count" ] || fail "store: cells $(sqlite3 'SELECT tracer, status FROM cells')"
P=$TEXTFILE/tracetax.prom
[ -s "$P" ] || fail "no textfile $P: $(cat "$TMP/run1.out")"
runuser -u nobody -- cat "$P" >/dev/null 2>"$TMP/nobody" ||
	fail "another user cannot read $P ($(stat -c %A "$P")): node_exporter could not: $(cat "$TMP/nobody")"
python3 - "$P" "$STORE" <<'PY' || fail "the textfile is not the stored run"
import re, sqlite3, sys
prom = open(sys.argv[1]).read()
db = sqlite3.connect(sys.argv[2])
cells = db.execute("SELECT tracer, status FROM cells WHERE run_id = 1").fetchall()
for tracer, status in cells:
    if not re.search(r'^tracetax_cell_info\{tracer="%s",.*status="%s"\} 1$' % (re.escape(tracer), status), prom, re.M):
        sys.exit(f"no cell_info of {tracer} ({status})")
ok = [t for t, s in cells if s == "ok"]
got = re.findall(r'^tracetax_overhead_per_event_seconds\{tracer="([^"]*)"', prom, re.M)
if sorted(got) != sorted(ok):
    sys.exit(f"overhead series {got}, ok cells {ok}")
print(f"store: run 1, {len(cells)} cells; textfile: the same cells, {len(ok)} with figures")
PY
echo "run: exit $rc, $(grep -c '^tracetax_' "$P") series in tracetax.prom, mode $(stat -c %a "$P")"

# --- another run holds the lock: the service waits for it (TRACETAX_WAIT), then runs.
# The holder counts for longer than any box needs to start the service, and
# is ended by SIGINT once the service says it waits for it.
"$TT" budget -t bpf:tp/count --for 120 --no-store >"$TMP/a.out" 2>"$TMP/a.err" &
a=$!
# once it counts, it holds the lock (it may have waited for another's)
for _ in $(seq 72000); do
	grep -q '^counting events' "$TMP/a.err" && break
	kill -0 "$a" 2>/dev/null || break
	sleep 0.05
done
grep -q '^counting events' "$TMP/a.err" || fail "the holder never got going: $(cat "$TMP/a.err")"
kill -0 "$a" 2>/dev/null || fail "the holder ended before the service started: $(cat "$TMP/a.err")"
exec_start "$TMP/run2.out" & s=$!
for _ in $(seq 2400); do
	grep -q "^tracetax: waiting up to 21600 s for another measurement to end: .*pid $a " "$TMP/run2.out" && break
	kill -0 "$s" 2>/dev/null || break
	sleep 0.05
done
kill -INT "$a" 2>/dev/null
wait "$s"; rc=$?
wait "$a"; arc=$?
success "$rc" || fail "the service failed after waiting: exit $rc: $(cat "$TMP/run2.out")"
[ "$arc" = 130 ] || fail "the holder exited $arc, not 130 (SIGINT): $(cat "$TMP/a.err")"
# (the holder it names may be another's run on a shared machine: a queue)
grep -Eq "^tracetax: waiting up to 21600 s for another measurement to end: .*pid [0-9]+ " "$TMP/run2.out" ||
	fail "the service did not wait for the lock (TRACETAX_WAIT=21600): $(cat "$TMP/run2.out")"
[ "$(sqlite3 'SELECT count(*) FROM runs')" = 2 ] || fail "store: want 2 runs after the wait"
echo "lock: $(grep -m1 waiting "$TMP/run2.out")"

# --- the box is disturbed: recorded as such, and the unit does not fail
cat >"$R/etc/tracetax/plan" <<'EOF'
tracers = perf:count, none
reps = 4
rounds = 1
run_ms = 100
EOF
exec_start "$TMP/run3.out" &
s=$!
# once perf:count's cell (the first) has its load, the lock is ours and the
# cell watches what else traces: frozen there while another tracer attaches,
# which then stays to the end, the arrival is inside the cell whatever the
# box's speed
tp=
for _ in $(seq 6000); do
	tp=$(pgrep -f -- "--plan $R/etc/tracetax/plan" | head -1)
	[ -n "$tp" ] && pgrep -P "$tp" -x tracetax-load >/dev/null && break
	tp=
	kill -0 "$s" 2>/dev/null || break
	sleep 0.05
done
[ -n "$tp" ] || fail "the disturbed run never ran a load: $(tail -5 "$TMP/run3.out")"
kill -STOP "$tp"
"$B/tests/tt-attach" syscalls:sys_enter_getpid 0 >"$TMP/attach" 2>&1 & at=$!
for _ in $(seq 200); do
	grep -q '^attached ' "$TMP/attach" && break
	kill -0 "$at" 2>/dev/null || break
	sleep 0.05
done
kill -CONT "$tp"
grep -q '^attached ' "$TMP/attach" || fail "tt-attach failed: $(cat "$TMP/attach")"
wait "$s"; rc=$?
kill "$at"; wait "$at" || fail "tt-attach failed: $(cat "$TMP/attach")"
[ "$rc" = 3 ] || fail "disturbed run: exit $rc, want 3: $(tail -5 "$TMP/run3.out")"
success 3 || fail "exit 3 (disturbed) would fail the unit: no SuccessExitStatus=3"
[ "$(sqlite3 "SELECT disturbed FROM cells WHERE run_id = 3 AND tracer = 'perf:count'")" = 1 ] ||
	fail "store: perf:count of run 3 not disturbed: $(sqlite3 'SELECT run_id, tracer, disturbed FROM cells')"
grep -q '^tracetax_disturbed{tracer="perf:count",.*} 1$' "$P" || fail "textfile: not disturbed: $(grep disturbed "$P")"
echo "disturbed: exit 3 (SuccessExitStatus), store and textfile say perf:count disturbed"
assert_clean
echo "ok"
