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

# Every network namespace a process or an fd holds, and loopback TCP sockets
# (address, peer and state; their owner apart).
net_namespaces() {
	{ readlink /proc/[0-9]*/task/*/ns/net; readlink /proc/[0-9]*/fd/*; } 2>/dev/null |
		grep '^net:' | sort -u
}
loopback_sockets() {
	ss -Htanp | awk '$4 ~ /^127\.0\.0\.1:/ || $5 ~ /^127\.0\.0\.1:/ { print $1, $4, $5, $6 }' | sort
}
# The loopback sockets that tracetax or its workload left: those that were
# not there before, held by no process (a closed connection's TIME-WAIT) or
# by one of this build's programs. The box is shared: another program's
# sockets come and go meanwhile, and are none of ours.
sockets_left() {
	local state addr peer users pid exe
	ours=" $(readlink -f "$B/tracetax-load") $(readlink -f "$TT") $D_LOAD "
	comm -13 <(echo "$SOCK_BEFORE" | cut -d' ' -f1-3) <(loopback_sockets | cut -d' ' -f1-3 | sort -u) |
	while read -r state addr peer; do
		users=$(loopback_sockets | awk -v a="$addr" -v p="$peer" '$2 == a && $3 == p { print $4 }')
		pid=$(echo "$users" | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1)
		if [ -n "$pid" ]; then
			exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || exe=
			case $ours in *" $exe "*) ;; *) [ -n "$exe" ] && continue ;; esac
		fi
		echo "$state $addr $peer $users"
	done
}
D_LOAD=
# An unrelated connection on the loopback, open now and closed (without a
# TIME-WAIT) before the check, and another opened meanwhile and still open
# then: neither is ours, and the check must not count them (it compared every
# socket for equality, and failed when a socket of the box went away).
cat >"$TMP/other.py" <<'PY'
import os, socket, struct, sys, time
d = sys.argv[1]
def pair():
    l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
    c = socket.create_connection(l.getsockname()); s, _ = l.accept()
    return [l, c, s]
a = pair()
open(d + "/ready", "w").close()
while not os.path.exists(d + "/swap"):
    time.sleep(0.05)
for x in a:
    x.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0)); x.close()
b = pair()
open(d + "/swapped", "w").close()
time.sleep(600)
PY
python3 "$TMP/other.py" "$TMP" & other=$!
trap 'kill $other 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [ -e "$TMP/ready" ] && break; sleep 0.1; done
[ -e "$TMP/ready" ] || fail "the unrelated connection did not open"
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
	trap 'kill $other 2>/dev/null; rm -rf "$TMP" "$D"' EXIT
	D_LOAD=$D/tracetax-load
	cp "$B/tracetax-load" "$B/libtracetax-target.so" "$D/" && chmod 755 "$D" ||
		fail "cannot copy the load to '$D'"
	for w in tcp tcp-rr; do
		setpriv --reuid="$uid" --regid="$(id -g nobody)" --clear-groups \
			"$D/tracetax-load" -w $w -n 2000 -t 2 >"$TMP/nobody.out" 2>&1 ||
			fail "tracetax-load -w $w as nobody failed: $(cat "$TMP/nobody.out")"
		grep -q '"bad":0,' "$TMP/nobody.out" || fail "$w as nobody: $(cat "$TMP/nobody.out")"
	done
fi

touch "$TMP/swap"
for _ in $(seq 100); do [ -e "$TMP/swapped" ] && break; sleep 0.1; done
[ -e "$TMP/swapped" ] || fail "the unrelated connection did not reopen"
left=$(sockets_left)
[ -z "$left" ] || fail "loopback sockets left: $left"
left=$(comm -13 <(echo "$NS_BEFORE") <(net_namespaces))
[ -z "$left" ] || fail "network namespaces left: $left"
assert_clean
