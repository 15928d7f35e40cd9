#!/usr/bin/env bash
# Draws a deadlock what-if study (npusim sweep CSV output) as a PNG with gnuplot (Debian
# gnuplot-nox: one small package, scriptable from a shell, no Python stack):
#   row 1: deadlock frequency per (streams, blocks per kernel), one heat map per schedule mode;
#   row 2: makespan of batch mode relative to normal mode on the runs that completed, and
#          the deadlock prediction per point from the study's own columns (docs/deadlocks.md):
#          possible_deadlock (the vendor rule warns) and reachable_deadlock (the exact
#          verdict), so the picture shows where the rule is conservative.
#   tools/plot_study.sh study.csv study.png [STREAMS_COLUMN BLOCKS_COLUMN MODE_COLUMN]
# Columns default to the axes of configs/scenarios/whatif_syncall_streams.json:
# streams, blocks, mode.
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 STUDY.csv OUT.png [streams-column blocks-column mode-column]" >&2
  exit 2
fi
csv=$1
png=$2
streams_col=${3:-streams}
blocks_col=${4:-blocks}
mode_col=${5:-mode}

command -v gnuplot >/dev/null || { echo "$0: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 2; }
[[ -r $csv ]] || { echo "$0: cannot read $csv" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Aggregate with awk: cells are plain (the study's axes hold no commas or quotes).
awk -F, -v S="$streams_col" -v B="$blocks_col" -v M="$mode_col" -v out="$work" '
  /^#/ { next }
  !header { for (i = 1; i <= NF; ++i) col[$i] = i; header = 1
            for (name in need) {}
            if (!(S in col) || !(B in col) || !(M in col) || !("deadlock" in col)) {
              print "plot_study: the CSV lacks column " S ", " B ", " M " or deadlock" > "/dev/stderr"; exit 2 }
            next }
  $col["status"] != "ok" { next }
  { s = $col[S]; b = $col[B]; m = $col[M]; key = s SUBSEP b
    runs[m, key]++; if ($col["deadlock"] == "true") dead[m, key]++
    if ($col["deadlock"] != "true") { span[m, key] += $col["makespan_cycles"]; done[m, key]++ }
    if (m == "normal" && ("possible_deadlock" in col)) {
      p = $col["possible_deadlock"] == "true" ? 1 : 0
      if ($col["reachable_deadlock"] == "true") p = 2
      if (p > verdict[key]) verdict[key] = p
      have_verdict = 1
    }
    streams[s] = 1; blocks[b] = 1; modes[m] = 1 }
  END {
    for (m in modes) {
      f = out "/dead_" m ".dat"
      for (s in streams) for (b in blocks) if (runs[m, s SUBSEP b])
        printf "%s %s %.4f\n", s, b, dead[m, s SUBSEP b] / runs[m, s SUBSEP b] >> f
    }
    f = out "/rule.dat"
    if (have_verdict) for (s in streams) for (b in blocks) printf "%s %s %d\n", s, b, verdict[s SUBSEP b] >> f
    for (s in streams) print s >> (out "/streams.tics")
    for (b in blocks) print b >> (out "/blocks.tics")
    f = out "/cost.dat"
    for (s in streams) for (b in blocks) {
      k = s SUBSEP b
      if (done["batch", k] && done["normal", k])
        printf "%s %s %.4f\n", s, b, (span["batch", k] / done["batch", k]) / (span["normal", k] / done["normal", k]) >> f
    }
  }' "$csv"
for f in "$work"/*.dat; do sort -n -k1,1 -k2,2 "$f" -o "$f"; done
# Tics exactly on the study's values.
tics() { sort -n "$1" | awk '{ printf "%s\"%s\" %s", (NR > 1 ? ", " : ""), $1, $1 }'; }
xtics=$(tics "$work/blocks.tics")
ytics=$(tics "$work/streams.tics")
[[ -f $work/dead_normal.dat ]] || { echo "$0: no rows with $mode_col = normal" >&2; exit 2; }
[[ -f $work/dead_batch.dat ]] || cp "$work/dead_normal.dat" /dev/null

gnuplot <<GP
set terminal pngcairo size 1500,900 font ",11"
set output "$png"
set multiplot layout 2,2 title "Deadlock what-if study: $(basename "$csv")"
set xlabel "blocks per kernel"
set xtics ($xtics)
set ytics ($ytics)
set ylabel "streams"
set cblabel "fraction of placement x schedule runs that deadlocked"
set cbrange [0:1]
set palette defined (0 "#f7fbff", 0.5 "#fd8d3c", 1 "#a50f15")
set style fill solid
unset key
set title "normal schedule mode: deadlocked runs / runs"
plot "$work/dead_normal.dat" using 2:1:3 with image notitle, \
     "" using 2:1:(sprintf("%.2f", \$3)) with labels notitle
set title "batch schedule mode: deadlocked runs / runs"
if (system("test -s $work/dead_batch.dat && echo 1") eq "1") {
  plot "$work/dead_batch.dat" using 2:1:3 with image notitle, \
       "" using 2:1:(sprintf("%.2f", \$3)) with labels notitle
} else { plot 0 notitle }
set title "mean makespan, batch / normal (runs that completed)"
set cblabel "makespan ratio"
set autoscale cbfix
set cbrange [*:*]
set palette defined (0 "#f7fcf5", 1 "#238b45")
if (system("test -s $work/cost.dat && echo 1") eq "1") {
  plot "$work/cost.dat" using 2:1:3 with image notitle, \
       "" using 2:1:(sprintf("%.4f", \$3)) with labels notitle
} else { plot 0 notitle }
set title "prediction (normal mode): 1 = the vendor rule warns, 2 = also reachable (exact)"
set cblabel "0 none, 1 rule only (cannot deadlock), 2 reachable"
set cbrange [0:2]
set palette defined (0 "#f7fbff", 1 "#bcbddc", 2 "#6a51a3")
if (system("test -s $work/rule.dat && echo 1") eq "1") {
  plot "$work/rule.dat" using 2:1:3 with image notitle, \
       "" using 2:1:(\$3 > 1.5 ? "reachable" : \$3 > 0.5 ? "rule only" : "") with labels notitle
} else { plot 0 notitle }
unset multiplot
GP
echo "plot_study: wrote $png"
