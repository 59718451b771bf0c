# The layering of src/ (HACKING.md), from the #include lines: no include up
# a layer, no cycle, tracers only through tracers/tracer.h, the tools'
# harness knowing no tool. And the checker itself: a tree with one breach
# of each kind planted must fail, naming each.
. "$(dirname "$0")/lib.sh"
CHECK=tests/layers/check_layers.py

out=$(python3 "$CHECK" src) || fail "the tree breaks its layers:
$out"
echo "$out"

# A copy with breaches planted: each one must be named.
cp -r src "$TMP/src"
echo '#include "cmd/cmd.h"' >>"$TMP/src/results/stats.c"                 # up a layer
echo '#include "measure/plan.h"' >>"$TMP/src/base/util.h"                  # up, from a header
echo '#include "tracers/bpf/bpf_util.h"' >>"$TMP/src/measure/runner.c"     # past tracer.h
echo '#include "tracers/tools/lttng.h"' >>"$TMP/src/tracers/tools/tool.c"  # harness knows a tool
echo '#include "measure/runner.h"' >>"$TMP/src/measure/child.h"            # cycle: runner -> ... -> child
mkdir "$TMP/src/extra" && echo '#include "base/util.h"' >"$TMP/src/extra/x.c"  # a folder with no place
out=$(python3 "$CHECK" "$TMP/src") && fail "a tree with planted breaches passed: $out"
for want in "results/stats.c: includes 'cmd/cmd.h': cmd/ is above results/" \
	    "base/util.h: includes 'measure/plan.h': measure/ is above base/" \
	    "measure/runner.c: includes 'tracers/bpf/bpf_util.h': outside tracers/, only tracers/tracer.h" \
	    "tracers/tools/tool.c: includes 'tracers/tools/lttng.h': the tools' harness knows no particular tool" \
	    "extra/x.c: 'extra/' is not a layer"; do
	grep -qF "$want" <<<"$out" || fail "not named: $want
in:
$out"
done
grep -q '^cycle: .*measure/child.*measure/runner' <<<"$out" || fail "the planted cycle is not named: $out"
echo "planted breaches: all named"
