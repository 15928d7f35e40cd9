#!/usr/bin/env bash
# Draws the fidelity benchmark (npusim-fidelity's fidelity.csv) as a PNG with gnuplot
# (Debian gnuplot-nox, as tools/plot_study.sh): predicted vs measured time per case on log
# axes, the y = x line and the 0.8x-1.25x band, calibration and benchmark cases apart.
#   tools/fidelity/plot_fidelity.sh fidelity.csv fidelity.png
set -euo pipefail
if (($# < 2)); then
  echo "usage: $0 FIDELITY.csv OUT.png" >&2
  exit 2
fi
csv=$1
png=$2
command -v gnuplot >/dev/null || { echo "$0: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 2; }
[[ -r $csv ]] || { echo "$0: cannot read $csv" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Columns: id,split,family,measured_us,predicted_us,ratio,... (cases that ran: predicted > 0).
awk -F, 'NR > 1 && $5 > 0 { print $4, $5, $1 > ("'"$work"'/" $2 ".dat") }' "$csv"
touch "$work/calibration.dat" "$work/benchmark.dat"
gnuplot <<GNUPLOT
set terminal pngcairo size 900,800 font ",11"
set output "$png"
set logscale xy
set xrange [30:10000]
set yrange [30:10000]
set xlabel "measured on Atlas A2 (us, published msprof Task Duration)"
set ylabel "predicted by npusim, a2 preset (us)"
set title "npusim fidelity: predicted vs measured (band: 0.8x - 1.25x)"
set key top left
set grid
plot x*1.25 with filledcurves y1=0 fc rgb "#e8f0ff" notitle, \
     x*0.8 with filledcurves y1=0 fc rgb "#ffffff" notitle, \
     x with lines lc rgb "#888888" title "predicted = measured", \
     x*1.25 with lines dt 2 lc rgb "#6688cc" title "1.25x", \
     x*0.8 with lines dt 2 lc rgb "#6688cc" title "0.8x", \
     "$work/calibration.dat" using 1:2 with points pt 5 ps 1.3 lc rgb "#cc4400" title "calibration (C1-C4)", \
     "$work/calibration.dat" using 1:2:3 with labels offset 1.2,0.6 font ",9" notitle, \
     "$work/benchmark.dat" using 1:2 with points pt 7 ps 1.3 lc rgb "#0044aa" title "benchmark (B1-B17)", \
     "$work/benchmark.dat" using 1:2:3 with labels offset 1.2,-0.6 font ",9" notitle
GNUPLOT
echo "wrote $png"
