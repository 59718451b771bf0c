# bash completion of tracetax(1): commands, options, tracer, workload and
# experiment names. Names come from the tracetax being completed
# (`tracetax list --names`, which probes nothing and takes no lock, and
# `tracetax experiment list`), so they are the installed build's.

# _tracetax_list WORD ITEMS...: complete the last item of a comma-separated WORD
_tracetax_list()
{
	local cur=$1 prefix=
	shift
	case $cur in *,*) prefix=${cur%,*},; cur=${cur##*,} ;; esac
	local IFS=$'\n'
	COMPREPLY=($(compgen -P "$prefix" -W "$*" -- "$cur"))
	compopt -o nospace 2>/dev/null
}

_tracetax()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n := || return
	else
		cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
	fi
	local tt=${words[0]} cmd= i
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in -*) ;; *) cmd=${words[i]}; break ;; esac
	done
	local commands="run budget list clocks pair rate cleanup history show compare export import report experiment vm"
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi

	local run_opts="--plan --workload --tracer --threads --reps --run-ms --precision --max-time
		--iterations --target --msg-size --cmd-timeout --ready --hits --audit-rules --accept-audit-residue --seed --tracer-cpu --json
		--csv --markdown --prometheus-textfile --store --no-store --dry-run --color --latency
		--no-wait --wait --explain --quiet --help"
	# the value of an option
	case $prev in
	-w|--workload)
		[[ $cmd == history ]] && { COMPREPLY=($(compgen -W "$("$tt" list --names workloads 2>/dev/null)" -- "$cur")); return; }
		_tracetax_list "$cur" $("$tt" list --names workloads 2>/dev/null) "cmd:'"
		return ;;
	-t|--tracer|--explain)
		_tracetax_list "$cur" $("$tt" list --names tracers 2>/dev/null) all @tools @mechanisms "cmd:'"
		return ;;
	--target)
		COMPREPLY=($(compgen -W "getpid getuid close stat newfstatat sendto tcp:tcp_probe" -- "$cur"))
		return ;;
	--tracer-cpu) COMPREPLY=($(compgen -W "same other any" -- "$cur")); return ;;
	--color|--colour) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
	--format|-f) COMPREPLY=($(compgen -W "csv markdown json prometheus" -- "$cur")); return ;;
	--by) COMPREPLY=($(compgen -W "host kernel" -- "$cur")); return ;;
	--pair) COMPREPLY=($(compgen -W "enter syscall func" -- "$cur")); return ;;
	-s|--storage)
		[[ $cmd == pair ]] && { _tracetax_list "$cur" global percpu hash lock all; return; } ;;
	--clock) COMPREPLY=($(compgen -W "ktime boot coarse" -- "$cur")); return ;;
	--prometheus-textfile) COMPREPLY=($(compgen -d -- "$cur")); return ;;
	--json|--csv|--markdown|-o|--output|--plan|--store|--audit-rules)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-T|--threads|-r|--reps|--run-ms|--precision|--max-time|-n|--iterations|--msg-size|\
	--cmd-timeout|--ready|--hits|--seed|--reads|--kernel|-l|--limit|--threshold)
		return ;;
	esac

	local opts
	case $cmd in
	run) opts=$run_opts ;;
	budget) opts="--tracer --for --pid --cgroup --target --audit-rules --measure --accept-audit-residue --max-age --workload --reps
		--run-ms --json --store --no-store --wait --no-wait --quiet --attached
		--prometheus-textfile --help" ;;
	list) opts="--json --names --help"
		[[ $prev == --names ]] && { COMPREPLY=($(compgen -W "tracers workloads" -- "$cur")); return; } ;;
	clocks) opts="--json --reads --help" ;;
	pair) opts="--workload --pair --storage --threads --clock --iterations --json --quiet --help" ;;
	rate) opts="--tracers --workload --rates --step-ms --backlog --records --all --quiet --wait
		--no-wait --accept-audit-residue --help" ;;
	cleanup) opts="--help" ;;
	vm) opts="--kernel --kernel-modules --wait --quiet --help" ;;
	history) opts="--workload --tracer --by --kernel --limit --store --help" ;;
	show) opts="--store --color --help" ;;
	compare) opts="--threshold --store --color --help" ;;
	export) opts="--format --output --store --help" ;;
	import) opts="--store --help" ;;
	report) opts="--output --store --help" ;;
	experiment)
		local sub= j
		for ((j = i + 1; j < cword; j++)); do
			case ${words[j]} in -*) ;; *) sub=${words[j]}; break ;; esac
		done
		if [[ -z $sub ]]; then
			COMPREPLY=($(compgen -W "list show run --help" -- "$cur"))
		elif [[ $sub != list ]] && (( j + 1 >= cword )); then
			COMPREPLY=($(compgen -W "$("$tt" experiment list 2>/dev/null | awk '/^[^ ]/ { print $1 }')" -- "$cur"))
		elif [[ $sub == run ]]; then
			COMPREPLY=($(compgen -W "$run_opts" -- "$cur"))
		fi
		return ;;
	*) return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [[ $cmd == import || $cmd == show || $cmd == compare || $cmd == export || $cmd == report ]]; then
		COMPREPLY=($(compgen -f -W "last last~1" -- "$cur"))
	fi
}
complete -F _tracetax tracetax
