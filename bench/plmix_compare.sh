#!/usr/bin/env bash
# Side-by-side timing of plackett's PL-mixture EM and Gibbs against R's
# PLMIX (Mollica & Tardella) on the same data, in one run
# (docs/benchmarks.md, "PL mixtures").
#
# Needs: Rscript with PLMIX installed in a library on R_LIBS (PLMIX's GPL
# source stays outside this repository; build it from CRAN's source with
# Debian's r-base-dev, r-cran-rcpp, r-cran-mcmcpack), and PLMIX's d_apa as
# an orderings CSV (PLMIX_DATA, default ../shared/data/plmix).
#
#   R_LIBS=/path/to/lib bash bench/plmix_compare.sh
source "$(dirname "$0")/side_by_side.sh"
data="${PLMIX_DATA:-../shared/data/plmix}"
cargo build --release --quiet --example mixture_timing
echo "== plackett (this repository, $(nproc) cores)"
./target/release/examples/mixture_timing --write "$scratch" --gibbs
echo "== PLMIX $(Rscript -e 'cat(as.character(packageVersion("PLMIX")))')"
Rscript bench/plmix_compare.R "$data/d_apa.csv" "$scratch/sim10k_top5_of20.csv"
