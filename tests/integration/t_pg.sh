# The PostgreSQL store, against a server of the test's own (a unix socket
# in $TMP, no TCP listener, stopped on every path): a run records there
# (TRACETAX_DB holding the URI), the password of the URI nowhere in the
# output or the database; two importers record at once, every run whole;
# a document imported as another host on another kernel; history (with
# --by host and --by kernel), show, compare, export and report (with its
# budgets) read from PostgreSQL; a run killed while recording leaves no run behind; a
# version 3 store is migrated; a newer schema is refused in one line; an unreachable server costs the record,
# not the table (exit 1).
. "$(dirname "$0")/lib.sh"
need_root
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$PGBIN/initdb" ] && [ -x "$PGBIN/pg_ctl" ] || skip "no PostgreSQL server (Debian: postgresql)"
command -v psql >/dev/null || skip "no psql (Debian: postgresql-client)"
id postgres >/dev/null 2>&1 || skip "no 'postgres' user to run the server as"

# The server runs as postgres: it must reach its directory inside $TMP.
chmod 711 "$TMP"
PG=$TMP/pg
mkdir "$PG" && chown postgres "$PG"
as_pg() { runuser -u postgres -- "$@"; }
as_pg "$PGBIN/initdb" -D "$PG/data" -A trust -U postgres >"$TMP/initdb.log" 2>&1 ||
	fail "initdb: $(tail -3 "$TMP/initdb.log")"
stop_pg() { as_pg "$PGBIN/pg_ctl" -D "$PG/data" -m immediate stop >/dev/null 2>&1; }
trap 'stop_pg; rm -rf "$TMP"' EXIT
as_pg "$PGBIN/pg_ctl" -D "$PG/data" -l "$PG/log" -w \
	-o "-c listen_addresses='' -k $PG -c fsync=off" start >"$TMP/pgctl.log" 2>&1 ||
	fail "pg_ctl start: $(cat "$TMP/pgctl.log" "$PG/log")"
sql() { psql -X -q -At -h "$PG" -U postgres -d "${DB:-tracetax}" -c "$1"; }
DB=postgres sql "CREATE DATABASE tracetax" || fail "createdb"
DB=postgres sql "CREATE DATABASE other" || fail "createdb other"
# trust over the socket: the password is sent nowhere, but it is in the URI
URI="postgresql://postgres:s3cretpw@/tracetax?host=$PG"
export TRACETAX_DB=$URI

# a run records in PostgreSQL, and says where without the password
# exit 3: another tracer came or went on this shared machine; the figures stand, marked
"$TT" run -t none,bpf:tp/count --reps 4 --run-ms 30 --json "$TMP/r.json" >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "run exited $rc: $(cat "$TMP/run.err")"
grep -q "^recorded as run 1 in 'postgresql://postgres@/tracetax?host=$PG'" "$TMP/run.err" ||
	fail "run does not say where: $(cat "$TMP/run.err")"
[ "$(sql "SELECT count(*) FROM cells WHERE run_id = 1")" = 2 ] || fail "run 1: not 2 cells"
host_id=$(sql "SELECT host_id FROM runs WHERE id = 1")
[ ${#host_id} = 16 ] || fail "run 1: host id '$host_id'"
"$TT" show 1 | cmp -s - "$TMP/run.out" || fail "show 1 differs from the run's table"
"$TT" export last --format json | cmp -s - "$TMP/r.json" || fail "export json is not the document"
echo "recorded: run 1, host id $host_id"

# two importers at once: 8 documents each, every run whole
for i in 1 2 3 4 5 6 7 8; do docs+=("$TMP/r.json"); done
"$TT" import "${docs[@]}" >"$TMP/w1" 2>&1 &
p1=$!
"$TT" import "${docs[@]}" >"$TMP/w2" 2>&1 &
p2=$!
wait $p1 || fail "importer 1 exited $?: $(cat "$TMP/w1")"
wait $p2 || fail "importer 2 exited $?: $(cat "$TMP/w2")"
[ "$(sql "SELECT count(*) FROM runs")" = 17 ] || fail "two importers: want 17 runs"
bad=$(sql "SELECT r.id FROM runs r WHERE (SELECT count(*) FROM cells c WHERE c.run_id = r.id) <> 2 OR
	(SELECT count(*) FROM environment e WHERE e.run_id = r.id) <>
	(SELECT count(*) FROM environment e WHERE e.run_id = 1)")
[ "$(sql "SELECT count(*) FROM environment WHERE run_id = 1")" -gt 10 ] || fail "run 1: its environment not stored"
[ -z "$bad" ] || fail "runs not whole: $bad"
echo "two importers: 17 runs, each whole"

# another host on another kernel (an edited copy of this run's document)
python3 - "$TMP/r.json" "$TMP/box2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["environment"]["hostname"] = "box2"
d["environment"]["kernel"] = "6.1.0-28-amd64"
for c in d["cells"]:
    if c["status"] == "ok":
        for k in ("overhead_ns_per_event",):
            s = c[k]
            for f in ("mean", "median", "min", "max"):
                s[f] *= 1.5
            s["ci95"] = [x * 1.5 for x in s["ci95"]]
json.dump(d, open(sys.argv[2], "w"))
PY
"$TT" import "$TMP/box2.json" >"$TMP/imp" 2>&1 || fail "import box2: $(cat "$TMP/imp")"
"$TT" history -t bpf:tp/count --by host >"$TMP/byhost" || fail "history --by host exited $?"
cat "$TMP/byhost"
grep -Eq "^box2 \(imported\) +bpf:tp/count +getpid +1T .* +1 +.* 18$" "$TMP/byhost" || fail "--by host: box2"
grep -Eq "^$(hostname | cut -c1-16) \(${host_id:0:8}\) +bpf:tp/count .* +1 +.* 1$" "$TMP/byhost" ||
	fail "--by host: this host"
"$TT" history -t bpf:tp/count --by kernel >"$TMP/bykernel" || fail "history --by kernel exited $?"
cat "$TMP/bykernel"
grep -Eq "^6\.1\.0-28-amd64 +bpf:tp/count .* 18$" "$TMP/bykernel" || fail "--by kernel: 6.1"
grep -Eq "^$(uname -r) +bpf:tp/count .* +17 +.* 1,2,3,4," "$TMP/bykernel" || fail "--by kernel: ours"
"$TT" history -t 'bpf:*' --kernel '6.1.*' | grep -c '^ *[0-9]' | grep -qx 1 ||
	fail "history --kernel glob on PostgreSQL"
"$TT" compare 1 18 >"$TMP/cmp" 2>&1; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "compare exited $rc: $(cat "$TMP/cmp")"
grep -q "^bpf:tp/count " "$TMP/cmp" || fail "compare: no bpf:tp/count row: $(cat "$TMP/cmp")"
# budget reads this host's cost from PostgreSQL and records there (it waits
# for the lock as run does), saying where without the password (checked
# below with every other output); the report shows it (report once
# access()ed the URI as a file)
"$TT" budget -t bpf:tp/count --for 1 --json "$TMP/budget.json" >"$TMP/budget.out" 2>"$TMP/budget.err" ||
	fail "budget on PostgreSQL exited $?: $(cat "$TMP/budget.err")"
grep -q "^budget recorded as 1 in 'postgresql://postgres@/tracetax?host=$PG'" "$TMP/budget.err" ||
	fail "budget does not say where: $(cat "$TMP/budget.err")"
json_get "$TMP/budget.json" 'd["tracers"][0]["cost"]["source"], d["tracers"][0]["cost"]["run_id"] != 18' |
	grep -qxF "store True" || fail "budget's cost is not this host's stored one: $(cat "$TMP/budget.out")"
[ "$(sql "SELECT count(*) FROM budgets")" = 1 ] || fail "budget: not recorded in PostgreSQL"
echo "budget: cost from PostgreSQL, recorded there"
# budget --attached records there too, and says where without the password
"$TT" budget --attached --for 1 >"$TMP/att.out" 2>"$TMP/att.err"; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "budget --attached on PostgreSQL exited $rc: $(cat "$TMP/att.err")"
grep -q "^recorded as budget 2 in 'postgresql://postgres@/tracetax?host=$PG'" "$TMP/att.err" ||
	fail "budget --attached does not say where, without the password: $(cat "$TMP/att.err")"
echo "budget --attached: recorded in PostgreSQL"
"$TT" report 1 18 -o "$TMP/report.html" || fail "report exited $?"
grep -q 'box2' "$TMP/report.html" || fail "report: no box2"
grep -q "<h2>Budgets" "$TMP/report.html" || fail "report: no budget section from PostgreSQL"
"$TT" export 18 --format csv | grep -q '^getpid,bpf:tp/count,' || fail "export csv"
echo "history, compare, report, export read from PostgreSQL"

# the password: in no output and nowhere in the database
if grep -rl s3cretpw "$TMP" --exclude-dir=pg 2>/dev/null | grep -q .; then
	fail "the password in: $(grep -rl s3cretpw "$TMP" --exclude-dir=pg)"
fi
as_pg pg_dump -h "$PG" -U postgres tracetax 2>/dev/null | grep -q s3cretpw && fail "the password in the database"
echo "password: in no output, not in the database"

# a key=value conninfo string is PostgreSQL's too: no SQLite file of that
# name made, the password in no message
CI="host=$PG user=postgres password=s3cretpw dbname=tracetax"
TTA=$(realpath "$TT")
(cd "$TMP" && "$TTA" run -t none -n 2000 --reps 2 --store "$CI") >"$TMP/ci.out" 2>"$TMP/ci.err"; rc=$?
[ "$rc" = 0 ] || [ "$rc" = 3 ] || fail "run on a conninfo store exited $rc: $(cat "$TMP/ci.err")"
grep -q "^recorded as run [0-9]* in 'host=$PG user=postgres dbname=tracetax'" "$TMP/ci.err" ||
	fail "conninfo: $(cat "$TMP/ci.err")"
ls "$TMP" | grep -q '^host=' && fail "conninfo: opened as a SQLite file: $(ls "$TMP")"
[ "$(sql "SELECT count(*) FROM runs")" = 19 ] || fail "conninfo: the run is not in PostgreSQL"
grep -q s3cretpw "$TMP/ci.out" "$TMP/ci.err" && fail "conninfo: the password printed"
echo "a conninfo string: PostgreSQL, its password redacted"

# killed while recording: cells is locked, so the run waits inside its
# transaction (runs row already inserted); SIGKILL, then the lock goes
before=$(sql "SELECT count(*) FROM runs")
psql -X -q -h "$PG" -U postgres -d tracetax \
	-c "BEGIN; LOCK TABLE cells IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(900);" >/dev/null 2>&1 &
locker=$!
for _ in $(seq 50); do
	[ "$(sql "SELECT count(*) FROM pg_locks WHERE relation = 'cells'::regclass AND granted
		AND mode = 'AccessExclusiveLock'")" = 1 ] && break
	sleep 0.1
done
"$TT" run -t none -n 2000 --reps 2 >"$TMP/kill.out" 2>&1 &
victim=$!
waited=0
until [ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'tracetax'
	AND wait_event_type = 'Lock'")" = 1 ]; do
	kill -0 $victim 2>/dev/null || fail "the run ended before it blocked: $(cat "$TMP/kill.out")"
	sleep 0.2
	waited=$((waited + 1))
	[ $waited -lt 3000 ] || fail "the run never reached the store"
done
kill -9 $victim
wait $victim 2>/dev/null
kill $locker 2>/dev/null
wait $locker 2>/dev/null
sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(900)%'
	AND pid <> pg_backend_pid()" >/dev/null
for _ in $(seq 50); do
	[ "$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'tracetax'")" = 0 ] && break
	sleep 0.1
done
[ "$(sql "SELECT count(*) FROM runs")" = "$before" ] || fail "a killed run left a run behind"
[ -z "$(sql "SELECT run_id FROM environment WHERE run_id NOT IN (SELECT id FROM runs)")" ] ||
	fail "a killed run left rows behind"
echo "killed while recording: no run left ($before runs)"

# a newer schema is refused in one line
DB=other
"$TT" import "$TMP/r.json" --store "postgresql:///other?host=$PG&user=postgres" >/dev/null ||
	fail "import into other"
# a version 3 store (no rule set columns) is migrated: the columns added,
# filled from the documents that have an audit:rules cell's rule set
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
d["cells"][0]["audit_rules"] = {"file": "x.rules", "digest": "00000000000000aa", "rules": 2}
json.dump(d, open(sys.argv[2], "w"))' "$TMP/r.json" "$TMP/ar.json"
"$TT" import "$TMP/ar.json" --store "postgresql:///other?host=$PG&user=postgres" >/dev/null ||
	fail "import of a rule set"
sql "ALTER TABLE cells DROP COLUMN audit_rules_file, DROP COLUMN audit_rules_digest,
	DROP COLUMN audit_rules_n; UPDATE tracetax_schema SET version = 3"
"$TT" history --store "postgresql:///other?host=$PG&user=postgres" >/dev/null 2>"$TMP/err" ||
	fail "history on a version 3 store: $(cat "$TMP/err")"
[ "$(sql "SELECT version FROM tracetax_schema")" = 5 ] || fail "version 3: not migrated to 5"
[ "$(sql "SELECT audit_rules_file || ' ' || audit_rules_digest || ' ' || audit_rules_n FROM cells
	WHERE audit_rules_digest IS NOT NULL")" = "x.rules 00000000000000aa 2" ] ||
	fail "version 3: the rule set not filled: $(sql "SELECT run_id, idx, audit_rules_file FROM cells")"
echo "version 3 migrated to 5, the rule set filled from its document"
sql "UPDATE tracetax_schema SET version = 99"
"$TT" history --store "postgresql:///other?host=$PG&user=postgres" >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 1 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "has schema version 99, newer than" "$TMP/err" ||
	fail "newer schema: exit $rc: $(cat "$TMP/err")"
# somebody else's tables named runs: refused, untouched
sql "DROP TABLE tracetax_schema"
"$TT" import "$TMP/r.json" --store "postgresql:///other?host=$PG&user=postgres" >/dev/null 2>"$TMP/err"; rc=$?
[ "$rc" = 1 ] && grep -q "is not a tracetax results store" "$TMP/err" || fail "not ours: exit $rc: $(cat "$TMP/err")"
echo "newer schema and foreign tables refused: $(cat "$TMP/err")"

# an unreachable server costs the record, not the table
"$TT" run -t none -n 2000 --reps 2 --store "postgresql://u:s3cretpw@/x?host=$TMP/nowhere" \
	>"$TMP/un.out" 2>"$TMP/un.err"; rc=$?
[ "$rc" = 1 ] || fail "unreachable: exit $rc"
grep -q '^none ' "$TMP/un.out" || fail "unreachable: no table"
grep -q "cannot record the run: cannot connect to results store 'postgresql://u@/x?host=$TMP/nowhere'" \
	"$TMP/un.err" || fail "unreachable: $(cat "$TMP/un.err")"
grep -q s3cretpw "$TMP/un.out" "$TMP/un.err" && fail "unreachable: the password printed"
echo "unreachable: $(grep 'cannot record' "$TMP/un.err")"
assert_clean
echo "ok"
