# Shared by the integration tests. Each test: exit 0 pass, 77 skip (last line
# says why), anything else fail.
set -u
B=${TRACETAX_BUILD:-build}
TT=$B/tracetax
TMP=$(mktemp -d)
# Tests write fakes under $TMP/bin (t_build): an empty TMP would make that /bin.
case $TMP in ""|/) false ;; *) [ -d "$TMP" ] ;; esac ||
	{ echo "FAIL: cannot make a temporary directory ('$TMP')"; exit 1; }
trap 'rm -rf "$TMP"' EXIT
# python3 as PATH names it, found once: a version manager's shim (pyenv's is a
# script that asks pyenv which python to run: 0.4 s a call on a busy box, and
# a test makes dozens) becomes the interpreter it runs, first in PATH.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
	mkdir "$TMP/python" && ln -s "$py" "$TMP/python/python3" && PATH=$TMP/python:$PATH
fi
# validate_json.py checks a schema against its metaschema once a test, not once a document
export TT_SCHEMA_CHECKED=$TMP
# Every run records into a results store: the test's own, never the user's.
export TRACETAX_DB=$TMP/results.db
# The machine is shared: the lock may be held by a long run for longer than
# tracetax's default wait (600 s). Tests wait as long as it takes.
export TRACETAX_WAIT=${TRACETAX_WAIT:-86400}

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
# A test that boots Debian's kernel in a VM of --kernel needs root, x86_64,
# qemu and busybox, and the kernel (scripts/debian-kernel.sh; make
# debian-kernel): skips without one of them, else sets K (its vmlinuz) and
# REL (its release).
need_vm_kernel() {
	need_root
	[ "$(uname -m)" = x86_64 ] || skip "the VM runs x86_64 kernels only"
	command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (package qemu-system-x86)"
	[ -x /bin/busybox ] || skip "no /bin/busybox (package busybox-static)"
	K=$(scripts/debian-kernel.sh "$B/kernel" 2>"$TMP/dk.err" | tail -n 1)
	[ -f "$K" ] || skip "no Debian kernel package: $(tail -n 1 "$TMP/dk.err")"
	REL=${K##*/vmlinuz-}
}

# jq-like access with python: json_get FILE 'expr over d'
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# Tracers `tracetax list` says are available here, matching a pattern and,
# optionally, hooking a kind of event (syscall, function, usdt, none), of a
# group: mechanisms (the default), tools (strace, bpftrace...) or any.
available() {
	tt_list
	python3 -c '
import json, sys, fnmatch
for t in json.load(sys.stdin)["tracers"]:
    hooks = t["hooks"] or ["none"]
    if t["status"] == "available" and fnmatch.fnmatch(t["name"], sys.argv[1]) and \
       (sys.argv[2] == "any" or sys.argv[2] in hooks) and sys.argv[3] in ("any", t["group"]):
        print(t["name"])' "${1:-*}" "${2:-any}" "${3:-mechanisms}" <"$TMP/list.json"
}

# Tracing BPF programs loaded on the machine (ours and anybody's), by id.
bpf_progs() {
	command -v bpftool >/dev/null || return 0
	bpftool prog show 2>/dev/null |
		sed -nE 's/^([0-9]+): (tracepoint|raw_tracepoint|tracing|kprobe|perf_event) .*/\1/p'
}
BPF_BEFORE=" $(bpf_progs | tr '\n' ' ') "

# Programs loaded since the test began that no live process holds an fd of:
# ours, once tracetax has exited. Those of a tracetax still running (another
# test run on the machine) are held, and not left behind.
# The holders are read after the listing, and a program gone by the time it is
# shown was being freed (another run's, on a shared machine): neither is ours.
bpf_left() {
	local held id ids
	ids=$(bpf_progs)
	held=" $(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:\s*//p' | tr '\n' ' ') "
	for id in $ids; do
		case "$BPF_BEFORE$held" in *" $id "*) continue ;; esac
		bpftool prog show id "$id" >/dev/null 2>&1 && echo "$id"
	done
}

# `tracetax list --json`, once a test, when available() first asks for it:
# it probes every tracer (1.5 s), and 28 tests never ask. available() runs in
# $(...) and pipes, where fail would end only a subshell: a list that fails (a
# sanitizer report makes tracetax exit 1) says so and ends the test itself.
tt_list() {
	local rc=0
	[ -s "$TMP/list.json" ] && return 0
	"$TT" list --json >"$TMP/list.json.new" 2>"$TMP/list.err" || rc=$?
	cat "$TMP/list.err" >&2
	if [ $rc != 0 ]; then
		echo "FAIL: tracetax list --json exited $rc: $(cat "$TMP/list.err")" >&2
		kill -TERM $$
		exit 1
	fi
	mv "$TMP/list.json.new" "$TMP/list.json"
}

# tracetax-<pid> names (instances, uprobe groups tracetax_<pid>) whose tracetax
# has exited: those of a tracetax still running (another test run on the
# machine) are not left behind, and are none of our business.
dead_owners() {
	local name pid
	for name in "$@"; do
		pid=${name#tracetax[-_]}
		kill -0 "$pid" 2>/dev/null || echo "$name"
	done
}

# The top-level ftrace state, which tracetax must never touch.
toplevel_state() {
	cat /sys/kernel/tracing/set_event /sys/kernel/tracing/tracing_on \
	    /sys/kernel/tracing/current_tracer /sys/kernel/tracing/buffer_size_kb 2>/dev/null
}
TOPLEVEL_BEFORE=$(toplevel_state)

# Nothing of ours is left on the machine.
assert_clean() {
	local inst left load tt p
	inst=$(dead_owners $(ls /sys/kernel/tracing/instances 2>/dev/null | grep '^tracetax-'))
	[ -z "$inst" ] || fail "tracefs instance left: $inst"
	[ "$(toplevel_state)" = "$TOPLEVEL_BEFORE" ] ||
		fail "top-level ftrace state changed (set_event, tracing_on, current_tracer, buffer_size_kb)"
	inst=$(dead_owners $(sed -n 's/^.:\(tracetax_[0-9]*\)\/.*/\1/p' /sys/kernel/tracing/uprobe_events 2>/dev/null))
	[ -z "$inst" ] || fail "uprobe event left: $(grep tracetax /sys/kernel/tracing/uprobe_events)"
	# the kernel frees a program from a work queue after its last fd closes:
	# give it a moment before calling it a leak
	for _ in $(seq 30); do [ -z "$(bpf_left)" ] && break; sleep 0.1; done
	left=$(bpf_left)
	[ -z "$left" ] || fail "BPF programs left: $(for p in $left; do bpftool prog show id "$p" | head -1; done)"
	# ours run this build's binaries (another test run may have its running):
	# workloads, and tracetax's forked helpers (ptrace) that hold its fds
	load=$(readlink -f "$B/tracetax-load")
	tt=$(readlink -f "$TT")
	for p in $(pgrep -x tracetax-load); do
		[ "$(readlink /proc/"$p"/exe)" = "$load" ] && fail "workload process left: $(pgrep -a -x tracetax-load)"
	done
	for p in $(pgrep -x tracetax); do
		[ "$(readlink /proc/"$p"/exe)" = "$tt" ] && fail "tracetax process left: $(ps -o pid,ppid,args -p "$p")"
	done
	# tools (strace, bpftrace, perf...) run in a directory tt-tool-<tracetax pid>-*:
	# one whose tracetax is gone is left behind, and so is such a directory.
	# Every process's cwd from one find: a readlink forked per process took
	# 1.5 s a call on a box of 100 processes.
	while read -r p cwd; do
		case ${cwd##*/} in
		tt-tool-*) [ -n "$(tool_dead "${cwd##*/}")" ] &&
			fail "tool process left: $(ps -o pid,ppid,args -p "${p#/proc/}" | tail -1)" ;;
		esac
	done < <(find /proc -mindepth 2 -maxdepth 2 -name cwd -lname '*/tt-tool-*' -printf '%h %l\n' 2>/dev/null)
	left=$(tool_dead $(ls "${TMPDIR:-/tmp}" | grep '^tt-tool-'))
	[ -z "$left" ] || fail "tool directory left: $left"
	return 0
}

# tt-tool-<pid>-XXXXXX names whose tracetax has exited
tool_dead() {
	local name pid
	for name in "$@"; do
		pid=${name#tt-tool-}
		pid=${pid%%-*}
		kill -0 "$pid" 2>/dev/null || echo "$name"
	done
}
