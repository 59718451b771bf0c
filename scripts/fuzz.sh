#!/bin/sh
# make fuzz [FUZZ_SECONDS=N]: builds the libFuzzer harnesses (build-fuzz/)
# and runs each for N seconds (default 60) from its seed corpus: real
# results documents and the broken fixtures for the document reader,
# argument lists for the option parsers. Prints, per harness, the
# executions, libFuzzer's coverage counters and the line coverage of the
# code it aims at. A crash, a leak, a hang past 10 s or a message of more
# than one line stops it with the input kept in build-fuzz/crashes/.
# A benchmark-style check, not part of `make check`.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-60}
B=build-fuzz
CLANG=${CLANG:-clang}

# Debian's clang finds libFuzzer in libclang-rt-*-dev, which it only recommends.
rt=$($CLANG -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
if [ ! -e "$rt" ] && ! echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
	$CLANG -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then
	echo "tracetax: clang cannot link libFuzzer: install libclang-rt-14-dev (or your clang's)" >&2
	exit 1
fi
make --no-print-directory FUZZ=1 fuzz-bins
mkdir -p "$B/crashes"

# run NAME FILES...: fuzz harness NAME; FILES: the code whose lines it should reach
run() {
	name=$1; shift
	corpus=$B/corpus/$name
	mkdir -p "$corpus"
	case $name in
	doc) seeds="tests/fixtures/docs tests/fixtures/bad"; max_len=262144 ;;
	cli) seeds=tests/fuzz/cli-seeds; max_len=512 ;;
	esac
	# shellcheck disable=SC2086
	LLVM_PROFILE_FILE="$B/$name.profraw" "$B/fuzz-$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=4096 -max_len=$max_len -print_final_stats=1 \
		-artifact_prefix="$B/crashes/$name-" "$corpus" $seeds >"$B/$name.log" 2>&1 || {
		tail -n 40 "$B/$name.log"
		echo "tracetax: fuzz-$name failed: the input is in $B/crashes/" >&2
		exit 1
	}
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/$name.log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$B/$name.log")
	last=$(grep -E '^#[0-9]+' "$B/$name.log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)
	echo "fuzz-$name: $runs executions in ${secs}s ($rate/s), $last"
	llvm-profdata merge -sparse "$B/$name.profraw" -o "$B/$name.profdata"
	# Filename Regions Missed Cover Functions Missed Executed Lines Missed Cover Branches Missed Cover
	llvm-cov report "$B/fuzz-$name" -instr-profile="$B/$name.profdata" "$@" |
		awk '/\.c / || /^TOTAL/ { n = split($1, p, "/");
			printf "    %-14s lines %s of %d, branches %s of %d\n", p[n], $10, $8, $13, $11 }'
}

run doc src/doc/read.c src/doc/field.c src/doc/read_cell.c src/doc/read_dist.c
run cli src/cli/cli.c src/cli/cli_results.c
