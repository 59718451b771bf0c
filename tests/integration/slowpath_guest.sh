# Run by t_slowpath.sh in a --kernel guest (tracetax vm), never on the host:
# it enables audit, and the residue must die with the guest. A fresh boot
# says nothing of a slow path; an audit cell runs without
# --accept-audit-residue (in a guest there is nothing to refuse); after it,
# every run's header names the residue with its size; an -a never,task rule
# of the box's own clears it. Prints "key: value" lines that the test checks.
set -u
B=${TRACETAX_BUILD:-build}
TT=$B/tracetax
export TRACETAX_DB=/tmp/slowpath-guest.db
[ -n "${TRACETAX_VM:-}" ] || { echo "error: not in a guest (TRACETAX_VM unset): refusing to enable audit"; exit 1; }

# run NAME TRACER [FLAGS...]: a short run, its exit code, its header's slow path line
# and its document's syscall_slow_path
run() {
	local name=$1 tracer=$2 rc
	shift 2
	"$TT" run -t "$tracer" -w getpid -r 2 --run-ms 5 --no-store --color never "$@" \
		--json "/tmp/$name.json" >"/tmp/$name.out" 2>"/tmp/$name.err"
	rc=$?
	echo "$name rc: $rc"
	echo "$name lines: $(grep -c 'syscall slow path' "/tmp/$name.out")"
	echo "$name line: $(grep 'syscall slow path' "/tmp/$name.out")"
	echo "$name doc: $(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])).get("syscall_slow_path")))' "/tmp/$name.json" 2>&1)"
	[ "$rc" = 0 ] || [ "$rc" = 3 ] || sed "s/^/$name err: /" "/tmp/$name.err"
}

echo "audit before: $(auditctl -s | sed -n 's/^enabled //p')"
run fresh none
run audit audit:enabled
echo "audit after: $(auditctl -s | sed -n 's/^enabled //p') rules: $(auditctl -l)"
run residue none
# the box's own -a never,task: fresh tasks get no audit context again
auditctl -a never,task >/dev/null
run never none
auditctl -d never,task >/dev/null
echo "rules at the end: $(auditctl -l)"
