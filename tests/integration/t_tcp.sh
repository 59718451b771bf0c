# The loopback TCP workloads. On their own syscall (sendto), a counting
# tracer's hits equal the messages the workload says it sent, exactly. On
# tcp:tcp_probe, bpf:tp/count counts hits > 0 (per segment, not per
# message), and the figures per hit and the throughput are there; tcp-rr
# counts round trips and gives their latency; a syscall-only tracer skips
# with its reason. Afterwards no socket, network namespace or process of
# the workload is left, with a namespace of its own (root) and without
# (nobody: the machine's loopback, where a graceful close would leave
# TIME_WAIT sockets behind for a minute).
. "$(dirname "$0")/lib.sh"
need_root
available 'bpf:tp/count' | grep -q . || skip "bpf:tp/count is not available here"
[ -d /sys/kernel/tracing/events/tcp/tcp_probe ] || skip "no tracepoint tcp:tcp_probe on this kernel"
command -v ss >/dev/null || skip "no 'ss' to look for sockets left behind"

# Every network namespace a process or an fd holds, and loopback TCP sockets.
net_namespaces() {
	{ readlink /proc/[0-9]*/task/*/ns/net; readlink /proc/[0-9]*/fd/*; } 2>/dev/null |
		grep '^net:' | sort -u
}
loopback_sockets() { ss -Htan | awk '$4 ~ /^127\.0\.0\.1:/ || $5 ~ /^127\.0\.0\.1:/' | sort; }
NS_BEFORE=$(net_namespaces)
SOCK_BEFORE=$(loopback_sockets)

N=3000
"$TT" run -q -w tcp,tcp-rr -t none,bpf:tp/count,ptrace:all --target tcp:tcp_probe -T 1,2 \
	-n $N --reps 2 --msg-size 1000 --json "$TMP/tp.json" >"$TMP/tp.out" 2>&1 ||
	fail "tracetax run on tcp:tcp_probe failed: $(cat "$TMP/tp.out")"
"$TT" run -q -w tcp,tcp-rr -t bpf:tp/count -T 2 -n $N --reps 2 --json "$TMP/sc.json" \
	>"$TMP/sc.out" 2>&1 || fail "tracetax run on sendto failed: $(cat "$TMP/sc.out")"
grep -q 'hits/ev' "$TMP/tp.out" || fail "no table per hit: $(cat "$TMP/tp.out")"
python3 - "$TMP/tp.json" "$TMP/sc.json" $N <<'PY' || exit 1
import json, sys
tp, sc, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), int(sys.argv[3])
bad = []
def runs_ok(c, name):
    if c["status"] != "ok":
        bad.append("%s: %s: %s" % (name, c["status"], c["reason"]))
        return False
    want = c["threads"] * (n + c["warmup"])
    for i, r in enumerate(c["runs"]):
        if r["events"] != want:
            bad.append("%s run %d: events %s, want %d" % (name, i, r["events"], want))
    return True
if tp["options"]["msg_size"] != 1000:
    bad.append("options.msg_size %s, want 1000" % tp["options"]["msg_size"])
for c in tp["cells"]:
    name = "%s %s %dT on %s" % (c["workload"], c["tracer"], c["threads"], c["target"])
    if c["tracer"] == "ptrace:all":
        if c["status"] != "skipped" or "hooks syscalls only" not in (c["reason"] or ""):
            bad.append("%s: %s (%s), want skipped: hooks syscalls only" % (name, c["status"], c["reason"]))
        continue
    if not runs_ok(c, name):
        continue
    t = c["throughput"]
    if not t or t["bytes_per_event"] != 1000 or not t["baseline_mb_per_s"] > 0 or \
       not t["traced_mb_per_s"] > 0 or t["loss_pct"] is None:
        bad.append("%s: throughput %s" % (name, t))
    if c["baseline_ns_per_op"]["mean"] <= 0:
        bad.append("%s: no latency per event" % name)
    if c["tracer"] == "none":
        continue
    for i, r in enumerate(c["runs"]):
        if not r["hits"] or r["hits"] <= 0:
            bad.append("%s run %d: hits %s, want > 0" % (name, i, r["hits"]))
    if not c["hits_per_event"] or c["overhead_ns_per_hit"] is None:
        bad.append("%s: hits_per_event %s, overhead_ns_per_hit %s" % (name, c["hits_per_event"], c["overhead_ns_per_hit"]))
    # a round trip: the request arrives at the peer, the response back
    if c["workload"] == "tcp-rr" and c["hits_per_event"] < 1.9:
        bad.append("%s: %.2f tcp_probe hits per round trip, want 2 or more" % (name, c["hits_per_event"]))
    if c["note"] and "!= events" in c["note"]:
        bad.append("%s: a tracepoint's hits checked against events: %s" % (name, c["note"]))
# on sendto, the op's own syscall, a counter sees exactly the messages the workload counted
for c in sc["cells"]:
    name = "%s %s %dT on %s" % (c["workload"], c["tracer"], c["threads"], c["target"])
    if c["target"] != "sendto":
        bad.append("%s: target %s, want the workload's sendto" % (name, c["target"]))
    if runs_ok(c, name):
        for i, r in enumerate(c["runs"]):
            if r["hits"] != r["events"] or r["lost"]:
                bad.append("%s run %d: hits %s != messages %s (lost %s)" % (name, i, r["hits"], r["events"], r["lost"]))
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
python3 tests/validate_json.py "$TMP/tp.json" docs/schema.json || fail "tp.json does not match the schema"

# Without a namespace of its own (nobody may not unshare), on the machine's loopback.
if uid=$(id -u nobody 2>/dev/null) && command -v setpriv >/dev/null; then
	D=$(mktemp -d /tmp/tcp.XXXXXX) || fail "cannot create a directory in /tmp"
	trap 'rm -rf "$TMP" "$D"' EXIT
	cp "$B/tracetax-load" "$B/libtracetax-target.so" "$D/" && chmod 755 "$D" ||
		fail "cannot copy the load to '$D'"
	for w in tcp tcp-rr; do
		setpriv --reuid="$uid" --regid="$(id -g nobody)" --clear-groups \
			"$D/tracetax-load" -w $w -n 2000 -t 2 >"$TMP/nobody.out" 2>&1 ||
			fail "tracetax-load -w $w as nobody failed: $(cat "$TMP/nobody.out")"
		grep -q '"bad":0,' "$TMP/nobody.out" || fail "$w as nobody: $(cat "$TMP/nobody.out")"
	done
fi

[ "$(loopback_sockets)" = "$SOCK_BEFORE" ] ||
	fail "loopback sockets left: $(diff <(echo "$SOCK_BEFORE") <(loopback_sockets) | grep '^>')"
left=$(comm -13 <(echo "$NS_BEFORE") <(net_namespaces))
[ -z "$left" ] || fail "network namespaces left: $left"
assert_clean
