#!/usr/bin/env bash
# plackett side by side with PlackettLuce (Turner et al. 2020), the R
# package most users of Plackett-Luce models come from, on the same files:
#   * NASCAR 2002 (Hunter 2004; data/nascar2002), all 87 drivers with
#     PlackettLuce's default 0.5 pseudo-rankings against a ghost item
#     (`--pseudo 0.5`), and the plain MLE without the four drivers who
#     always finished last; log-worths relative to Austin Cameron and their
#     standard errors, PlackettLuce run to epsilon = 1e-12;
#   * MAP under a normal prior on the log-worths (PlackettLuce's `normal`);
#   * ties as events (Davidson-Luce), simulated rankings with ties of
#     order 2 and 3: log-worths, tie prevalences, standard errors;
#   * timing on simulated sub-rankings (10 of 100 items, 10,000 rankings;
#     10 of 500 items, 20,000 rankings): PlackettLuce at its defaults (what
#     a user gets; wall seconds of the fit and its summary with standard
#     errors) against the whole plackett process (reading included).
# Needs: Rscript with PlackettLuce, python3, and a release build (cargo
# build --release). PlackettLuce 0.4's CVXR is not packaged by Debian; 0.3.2
# installs from Debian's packages: apt-get install r-cran-igraph
# r-cran-matrix r-cran-partykit r-cran-psychotools r-cran-psychotree
# r-cran-qvcalc r-cran-rspectra r-cran-sandwich, then R CMD INSTALL a
# checkout of github.com/hturner/PlackettLuce at tag v0.3.2 (set R_LIBS if
# installed into a private library).
source "$(dirname "$0")/side_by_side.sh"
echo "== PlackettLuce $(Rscript -e 'cat(as.character(packageVersion("PlackettLuce")))')"
nascar=data/nascar2002/results.csv
cols=(--ranking-col race --rank-col position --item-col driver)
last="Andy Hillenburg,Gary Bradberry,Jason Hedlesky,Randy Renfrow"

Rscript bench/plackettluce_compare.R $nascar 0.5 "Austin Cameron" tight > "$scratch/pseudo.r"
start=$(date +%s.%N)
$bin fit $nascar "${cols[@]}" --pseudo 0.5 --reference "Austin Cameron" --output json > "$scratch/pseudo.json"
end=$(date +%s.%N)
python3 bench/compare_r_fit.py \
    "NASCAR 2002, 87 drivers, 0.5 pseudo-rankings (plackett $(python3 -c "print(f'{$end - $start:.3f}')") s)" \
    "$scratch/pseudo.r" "$scratch/pseudo.json" "Austin Cameron" PlackettLuce

python3 - "$nascar" "$scratch/nascar83.csv" "$last" <<'EOF'
import csv, sys
drop = set(sys.argv[3].split(","))
rows = list(csv.reader(open(sys.argv[1])))
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(rows[0])
    kept = {}
    for race, pos, driver in rows[1:]:
        if driver not in drop:
            kept.setdefault(race, []).append((int(pos), driver))
    # Positions renumbered 1, 2, … within each race (the order is kept).
    for race, ds in kept.items():
        for k, (_, driver) in enumerate(sorted(ds)):
            w.writerow([race, k + 1, driver])
EOF
Rscript bench/plackettluce_compare.R "$scratch/nascar83.csv" 0 "Austin Cameron" tight > "$scratch/mle.r"
start=$(date +%s.%N)
$bin fit $nascar "${cols[@]}" --exclude "$last" --reference "Austin Cameron" --output json > "$scratch/mle.json"
end=$(date +%s.%N)
python3 bench/compare_r_fit.py \
    "NASCAR 2002, 83 drivers, MLE (plackett $(python3 -c "print(f'{$end - $start:.3f}')") s)" \
    "$scratch/mle.r" "$scratch/mle.json" "Austin Cameron" PlackettLuce

# MAP under a normal prior N(0, 2^2) on every log-worth (PlackettLuce's
# `normal`), all 87 drivers, PlackettLuce's BFGS run tight and at its
# default tolerance.
for tol in tight default; do
    Rscript bench/plackettluce_compare.R $nascar 0 "Austin Cameron" $tol 2 > "$scratch/normal.r"
    $bin fit $nascar "${cols[@]}" --engine map --prior normal --prior-mean 0 --prior-sd 2 \
        --reference "Austin Cameron" --output json > "$scratch/normal.json"
    python3 bench/compare_r_fit.py "NASCAR 2002, 87 drivers, MAP under N(0, 2^2), PlackettLuce $tol" \
        "$scratch/normal.r" "$scratch/normal.json" "Austin Cameron" PlackettLuce | sed -n '1,3p;$p'
done

# Ties as events (the Davidson-Luce model PlackettLuce fits): simulated
# sub-rankings of 6 of 20 items with ties of order 2 (15% of the places)
# and 3 (5%) cut into them; log-worths and log δ_2, log δ_3.
$bin simulate --items 20 --rankings 3000 --length 6 --seed 5 --out "$scratch/t.json"
python3 - "$scratch/t.json" "$scratch/ties.csv" <<'EOF'
import json, random, sys
random.seed(5)
with open(sys.argv[2], "w") as f:
    f.write("ranking,rank,item\n")
    for r, order in enumerate(json.load(open(sys.argv[1]))):
        rank, k = 1, 0
        while k < len(order):
            u = random.random()
            size = 3 if u < 0.05 else 2 if u < 0.20 else 1
            for i in order[k:k + size]:
                f.write(f"{r},{rank},i{i}\n")
            rank += 1
            k += size
EOF
Rscript bench/plackettluce_compare.R "$scratch/ties.csv" 0 i0 tight > "$scratch/ties.r"
start=$(date +%s.%N)
$bin fit "$scratch/ties.csv" --ranking-col ranking --rank-col rank --item-col item \
    --reference i0 --ties event --output json > "$scratch/ties.json"
end=$(date +%s.%N)
python3 bench/compare_r_fit.py \
    "ties as events, 6 of 20 items, 3,000 rankings (plackett $(python3 -c "print(f'{$end - $start:.3f}')") s)" \
    "$scratch/ties.r" "$scratch/ties.json" i0 PlackettLuce | sed -n '1,2p;/^   tie/p;$p'

for cfg in "100 10000" "500 20000"; do
    set -- $cfg
    $bin simulate --items "$1" --rankings "$2" --length 10 --seed 3 --out "$scratch/sim.json"
    python3 - "$scratch/sim.json" "$scratch/sim.csv" <<'EOF'
import json, sys
with open(sys.argv[2], "w") as f:
    f.write("ranking,rank,item\n")
    for r, order in enumerate(json.load(open(sys.argv[1]))):
        for k, i in enumerate(order):
            f.write(f"{r},{k + 1},i{i}\n")
EOF
    Rscript bench/plackettluce_compare.R "$scratch/sim.csv" 0 i0 > "$scratch/sim.r"
    start=$(date +%s.%N)
    $bin fit "$scratch/sim.csv" --ranking-col ranking --rank-col rank --item-col item \
        --reference i0 --output json > "$scratch/sim.json.out"
    end=$(date +%s.%N)
    python3 bench/compare_r_fit.py \
        "$1 items, $2 rankings of 10, PlackettLuce at its defaults (plackett $(python3 -c "print(f'{$end - $start:.3f}')") s)" \
        "$scratch/sim.r" "$scratch/sim.json.out" i0 PlackettLuce | sed -n '1p;$p'
done
