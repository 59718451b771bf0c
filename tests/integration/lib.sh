# Shared by the integration tests. Each test: exit 0 pass, 77 skip (last line
# says why), anything else fail.
set -u
B=${TRACETAX_BUILD:-build}
TT=$B/tracetax
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }

# jq-like access with python: json_get FILE 'expr over d'
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# Tracers `tracetax list` says are available here, matching a pattern and,
# optionally, hooking a kind of event (syscall, function, usdt, none).
available() {
	"$TT" list --json | python3 -c '
import json, sys, fnmatch
for t in json.load(sys.stdin)["tracers"]:
    hooks = t["hooks"] or ["none"]
    if t["status"] == "available" and fnmatch.fnmatch(t["name"], sys.argv[1]) and \
       (sys.argv[2] == "any" or sys.argv[2] in hooks):
        print(t["name"])' "${1:-*}" "${2:-any}"
}

# Tracing BPF programs loaded on the machine (ours and anybody's).
bpf_progs() {
	command -v bpftool >/dev/null || { echo 0; return; }
	bpftool prog show 2>/dev/null | grep -cE '^[0-9]+: (tracepoint|raw_tracepoint|tracing|kprobe|perf_event)'
}
BPF_BEFORE=$(bpf_progs)

# Nothing of ours is left on the machine.
assert_clean() {
	local inst
	inst=$(ls /sys/kernel/tracing/instances 2>/dev/null | grep '^tracetax-' || true)
	[ -z "$inst" ] || fail "tracefs instance left: $inst"
	grep -q tracetax /sys/kernel/tracing/uprobe_events 2>/dev/null && fail "uprobe event left"
	# the kernel frees a program from a work queue after its last fd closes:
	# give it a moment before calling it a leak
	for _ in $(seq 30); do [ "$(bpf_progs)" -le "$BPF_BEFORE" ] && break; sleep 0.1; done
	[ "$(bpf_progs)" -le "$BPF_BEFORE" ] || fail "BPF programs left: $(bpf_progs) tracing programs, $BPF_BEFORE before: $(bpftool prog show | grep -E '^[0-9]+: (tracepoint|raw_tracepoint|tracing|kprobe|perf_event)' | head -3)"
	pgrep -x tracetax-load >/dev/null && fail "workload process left: $(pgrep -a -x tracetax-load)"
	return 0
}
