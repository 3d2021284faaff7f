#!/usr/bin/env bash
# plackett tree side by side with R's pltree (PlackettLuce 0.3.2 on
# partykit; Turner, van Etten, Firth & Kosmidis 2020), same files, one run:
#   * the beans vignette tree (van Etten et al. 2019; 842 farmers, 3,368
#     rankings, 11 varieties): pltree(G ~ season + year + maxTN, minsize =
#     0.05 n, maxdepth = 3) with year a factor — the data exported from the
#     installed PlackettLuce (not shipped; see data/README.md);
#   * the shipped simulated trial data/tricot-sim at minsize 80, and at
#     minsize 30 with maxdepth 2 (the fixtures of tests/library/tree.rs).
# Prints, per case, whether the splits and node sizes agree, the largest
# log-worth and log-likelihood differences, the root tests, and both
# wall times (plackett: the whole process, reading included).
# Needs: Rscript with PlackettLuce 0.3.2 and jsonlite (see
# bench/plackettluce_compare.sh for the Debian packages) and a release
# build (cargo build --release).
source "$(dirname "$0")/side_by_side.sh"

Rscript - "$scratch" <<'EOF_R'
suppressMessages(library(PlackettLuce))
out <- commandArgs(TRUE)[1]
example("beans", package = "PlackettLuce", echo = FALSE)
n <- nrow(beans)
Rm <- unclass(R)
long <- do.call(rbind, lapply(seq_len(nrow(Rm)), function(i) {
  r <- Rm[i, ]; k <- which(r > 0)
  data.frame(farmer = ((i - 1) %% n) + 1, ranking = i, item = colnames(Rm)[k], rank = r[k])
}))
write.csv(long, file.path(out, "beans_rankings.csv"), row.names = FALSE, quote = FALSE)
write.csv(data.frame(farmer = seq_len(n), season = beans$season, year = beans$year,
                     maxTN = beans$maxTN),
          file.path(out, "beans_covariates.csv"), row.names = FALSE, quote = FALSE)
EOF_R

compare() { # label, R json, plackett json
python3 - "$@" <<'EOF_PY'
import json, sys
label, rj, pj = sys.argv[1:4]
r, p = json.load(open(rj)), json.load(open(pj))
same = len(r["nodes"]) == len(p["nodes"])
dlw = dll = 0.0
for a, b in zip(p["nodes"], r["nodes"]):
    same &= a["n"] == b["n"]
    dll = max(dll, abs(-a["log_likelihood"] - b["objfun"]))
    if "split" in b:
        s = a["split"] or {}
        same &= s.get("variable") == b["split"]["variable"]
        if "threshold" in b["split"]:
            same &= s.get("threshold") == b["split"]["threshold"]
        else:
            sides = {frozenset(s.get("left_levels", [])), frozenset(s.get("right_levels", []))}
            same &= sides == {frozenset(b["split"]["left"]), frozenset(b["split"]["right"])}
    else:
        items = {i["name"]: i["log_worth"] for i in a["items"]}
        ref = next(iter(b["log_worth"]))
        for name, v in b["log_worth"].items():
            dlw = max(dlw, abs(items[name] - items[ref] - v))
print(f"{label}: same splits and node sizes: {same}; max |log-worth diff| {dlw:.2e}; "
      f"max |node log-lik diff| {dll:.2e}; total log-lik {p['log_likelihood']:.4f} vs {r['log_likelihood']:.4f}")
for j, v in enumerate(r["root_tests"]["variable"]):
    t = next(t for t in p["nodes"][0]["tests"] if t["variable"] == v)
    print(f"  root test {v}: statistic {t['statistic']:.6f} vs {r['root_tests']['statistic'][j]:.6f}, "
          f"adjusted p {t['p_value']:.4g} vs {r['root_tests']['p_value'][j]:.4g}")
EOF_PY
}

run_case() { # label, rankings, ranker, ranking, item, rank, covariates, key, minsize, maxdepth, factors, ordered
    local label=$1; shift
    Rscript bench/pltree_compare.R "$@" > "$scratch/r.json"
    local depth=()
    [ "$9" != Inf ] && depth=(--maxdepth "$9")
    local cat=()
    [ -n "${10:-}" ] && cat=(--categorical "${10}")
    [ -n "${11:-}" ] && cat+=(--ordered "${11}")
    local start end
    start=$(date +%s.%N)
    $bin tree "$1" --ranker-col "$2" --ranking-col "$3" --item-col "$4" --rank-col "$5" \
        --covariates "$6" --covariate-key "$7" --minsize "$8" "${depth[@]}" "${cat[@]}" \
        --output json > "$scratch/p.json"
    end=$(date +%s.%N)
    echo "== $label: pltree $(python3 -c "import json; print(round(json.load(open('$scratch/r.json'))['seconds'], 3))") s (fit alone), plackett $(python3 -c "print(f'{$end - $start:.3f}')") s (whole process)"
    compare "$label" "$scratch/r.json" "$scratch/p.json"
}

run_case "beans vignette tree" "$scratch/beans_rankings.csv" farmer ranking item rank \
    "$scratch/beans_covariates.csv" farmer 42 3 year
run_case "tricot-sim, minsize 80" data/tricot-sim/rankings.csv farmer trial variety rank \
    data/tricot-sim/covariates.csv farmer 80 Inf
run_case "tricot-sim, minsize 30, maxdepth 2" data/tricot-sim/rankings.csv farmer trial variety rank \
    data/tricot-sim/covariates.csv farmer 30 2
run_case "tricot-sim, region ordered, minsize 40" data/tricot-sim/rankings.csv farmer trial variety rank \
    data/tricot-sim/covariates.csv farmer 40 Inf "" "region=north,east,south,west"
