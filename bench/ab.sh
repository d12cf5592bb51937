#!/usr/bin/env bash
# ab.sh compares two rocetrace builds in one run, alternating them round by
# round so that the machine's noise falls on both alike:
#
#   bench/ab.sh [-r ROUNDS] OLD_BINARY NEW_BINARY FILE...
#
# For each file and round it times `report --json`, `packets --json` and
# `export` (to a temporary directory) with each build, and prints per
# command and file the median wall time and peak RSS of each build and the
# ratio new/old. A ratio within the spread of the rounds is noise: quote
# medians of at least 5 rounds. Needs GNU time (/usr/bin/time).
set -euo pipefail
rounds=5
while getopts "r:" opt; do
	case $opt in
	r) rounds=$OPTARG ;;
	*) echo "usage: $0 [-r ROUNDS] OLD NEW FILE..." >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] || { echo "usage: $0 [-r ROUNDS] OLD NEW FILE..." >&2; exit 2; }
old=$1 new=$2
shift 2
out=$(mktemp -d /tmp/rocetrace-ab.XXXXXX)
raw=$out/raw.tsv
: >"$raw"

# sample BUILD CMD FILE ARGS... appends "BUILD CMD FILE wall rss".
sample() {
	local build=$1 cmd=$2 file=$3
	shift 3
	local t0 t1
	t0=$(date +%s%N)
	/usr/bin/time -f "%M" -o "$out/time.txt" "$@" >/dev/null 2>"$out/stderr.txt" ||
		{ echo "ab.sh: $build $cmd $file failed: $(tail -2 "$out/stderr.txt")" >&2; exit 1; }
	t1=$(date +%s%N)
	printf "%s\t%s\t%s\t%s\t%s\n" "$build" "$cmd" "$file" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.4f", (b-a)/1e9}')" "$(cat "$out/time.txt")" >>"$raw"
}

run() { # run BUILD BINARY FILE
	local b=$1 bin=$2 f=$3
	sample "$b" json "$f" "$bin" report --json "$f"
	sample "$b" packets "$f" "$bin" packets --json "$f"
	sample "$b" export "$f" "$bin" export --force -o "$out/x" "$f"
	rm -rf "$out/x"
}

for ((r = 1; r <= rounds; r++)); do
	for f in "$@"; do
		echo "round $r/$rounds: $f" >&2
		cat "$f" >/dev/null
		if ((r % 2)); then run old "$old" "$f"; run new "$new" "$f"; else run new "$new" "$f"; run old "$old" "$f"; fi
	done
done

median() { # median BUILD CMD FILE COLUMN
	awk -F'\t' -v b="$1" -v c="$2" -v f="$3" -v k="$4" '$1==b && $2==c && $3==f {print $k}' "$raw" |
		sort -g | awk '{v[NR]=$1} END{if (NR%2) print v[(NR+1)/2]; else printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}'
}

printf "| command | capture | old s | new s | new/old | old RSS MB | new RSS MB |\n|---|---|---:|---:|---:|---:|---:|\n"
for f in "$@"; do
	for c in json packets export; do
		o=$(median old $c "$f" 4) n=$(median new $c "$f" 4)
		or=$(median old $c "$f" 5) nr=$(median new $c "$f" 5)
		awk -v c="$c" -v f="$(basename "$f")" -v o="$o" -v n="$n" -v or="$or" -v nr="$nr" \
			'BEGIN{printf "| %s | %s | %.3f | %.3f | %.2f | %.0f | %.0f |\n", c, f, o, n, n/o, or/1024, nr/1024}'
	done
done
echo "raw samples: $raw" >&2
