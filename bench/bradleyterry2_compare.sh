#!/usr/bin/env bash
# plackett side by side with BradleyTerry2 (Turner & Firth 2012), R's
# reference implementation of Bradley-Terry models, on the same files:
#   * citations (Stigler 1994, the package's data): Bradley-Terry MLE with
#     standard errors, abilities relative to Biometrika;
#   * flatlizards (Whiting et al. 2006, the package's data): abilities
#     x'beta from four covariates, no random effect (PL regression on pairs,
#     Guo et al. 2019's model restricted to comparisons);
#   * the citations' quasi-variances against qvcalc (Firth's package, which
#     PlackettLuce and BradleyTerry2 call), and against its criterion
#     minimised to a tight tolerance;
#   * the synthetic pairs of crates/plackett/tests/data/bt_covariates
#     (which tests/reference.rs checks against this script's numbers);
#   * timing: 500 items, 50,000 simulated comparisons, plain and with 5
#     covariates, BTm at glm's default tolerance (what a user gets; wall
#     seconds of the fit itself) against the whole plackett process.
# The first three run glm to a tight tolerance (`tight`, see the R script).
# Needs: Rscript with BradleyTerry2 (Debian: apt-get install
# r-cran-bradleyterry2), python3, and a release build (cargo build --release).
# The package's data are read from the installed package, never copied.
source "$(dirname "$0")/side_by_side.sh"
echo "== BradleyTerry2 $(Rscript -e 'cat(as.character(packageVersion("BradleyTerry2")))')"
Rscript bench/bradleyterry2_compare.R export "$scratch"

compare() { # label, R output file, plackett JSON file, gauge reference or ""
  python3 bench/compare_r_fit.py "$@"
}

Rscript bench/bradleyterry2_compare.R plain "$scratch/citations.csv" Biometrika tight | sed 's/ $//' > "$scratch/cit.r"
$bin fit "$scratch/citations.csv" --format pairs --reference Biometrika --output json > "$scratch/cit.json"
compare "citations, plain Bradley-Terry" "$scratch/cit.r" "$scratch/cit.json" Biometrika

Rscript bench/bradleyterry2_compare.R covariates "$scratch/lizards.csv" "$scratch/lizards_features.csv" tight > "$scratch/liz.r"
$bin fit "$scratch/lizards.csv" --format pairs --features "$scratch/lizards_features.csv" --output json > "$scratch/liz.json"
compare "flatlizards, four covariates" "$scratch/liz.r" "$scratch/liz.json" ""

# Quasi-variances of the citations abilities: qvcalc (which PlackettLuce and
# BradleyTerry2 call) against `plackett fit --quasi`.
Rscript bench/bradleyterry2_compare.R quasi "$scratch/citations.csv" Biometrika > "$scratch/qv.r"
$bin fit "$scratch/citations.csv" --format pairs --reference Biometrika --quasi --output json > "$scratch/qv.json"
python3 - "$scratch/qv.r" "$scratch/qv.json" <<'EOF'
import json, sys
r = {}
for line in open(sys.argv[1]):
    t = line.split()
    r[t[0]] = [float(x) for x in t[1:]]
q = json.load(open(sys.argv[2]))["quasi_variances"]
names = [it["name"] for it in q["items"]]
ours = [it["quasi_var"] for it in q["items"]]
print("-- citations, quasi-variances (Firth & de Menezes 2004)")
for name, a, b, c in zip(names, r["qvcalc"], r["tight"], ours):
    print(f"   {name:<16} qvcalc {a:.12f}  criterion to 1e-17 {b:.12f}  plackett {c:.12f}  "
          f"rel diff {abs(c - b) / b:.1e} ({abs(c - a) / a:.1e} to qvcalc)")
lo, hi = q["worst_relative_error_simple_pct"]
print(f"   worst relative errors over simple contrasts: qvcalc {100 * r['relerr'][0]:.4f}% / "
      f"{100 * r['relerr'][1]:.4f}%, plackett {lo:.4f}% / {hi:.4f}%")
EOF

fix=crates/plackett/tests/data/bt_covariates
Rscript bench/bradleyterry2_compare.R covariates "$fix/pairs.csv" "$fix/features.csv" tight > "$scratch/syn.r"
$bin fit "$fix/pairs.csv" --format pairs --features "$fix/features.csv" --output json > "$scratch/syn.json"
compare "synthetic fixture (40 items, 400 pairs, 3 covariates)" "$scratch/syn.r" "$scratch/syn.json" ""

# Timing on a larger problem.
$bin simulate --items 500 --rankings 50000 --design pairs --features 5 --seed 11 \
    --out "$scratch/big.json" --features-out "$scratch/big_features.csv"
python3 - "$scratch/big.json" "$scratch/big.csv" <<'EOF'
import json, sys
with open(sys.argv[2], "w") as f:
    f.write("item_i,item_j,i_wins,j_wins\n")
    for w, l in json.load(open(sys.argv[1])):
        f.write(f"{w},{l},1,0\n")
EOF
Rscript bench/bradleyterry2_compare.R plain "$scratch/big.csv" 0 > "$scratch/big_plain.r"
start=$(date +%s.%N)
$bin fit "$scratch/big.csv" --format pairs --reference 0 --output json > "$scratch/big_plain.json"
end=$(date +%s.%N)
compare "500 items, 50,000 pairs, plain (plackett $(python3 -c "print(f'{$end - $start:.3f}')") s)" \
    "$scratch/big_plain.r" "$scratch/big_plain.json" 0 | sed -n '1p;$p'
Rscript bench/bradleyterry2_compare.R covariates "$scratch/big.csv" "$scratch/big_features.csv" > "$scratch/big_cov.r"
start=$(date +%s.%N)
$bin fit "$scratch/big.csv" --format pairs --features "$scratch/big_features.csv" --output json > "$scratch/big_cov.json"
end=$(date +%s.%N)
compare "500 items, 50,000 pairs, 5 covariates (plackett $(python3 -c "print(f'{$end - $start:.3f}')") s)" \
    "$scratch/big_cov.r" "$scratch/big_cov.json" "" | sed -n '1p;$p'
