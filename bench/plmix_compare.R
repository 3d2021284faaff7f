# PLMIX side of bench/plmix_compare.sh: per EM run, per EM iteration and
# per Gibbs sweep on d_apa (G = 2) and 10,000 simulated top-5 rankings of
# 20 items (G = 3). Needs PLMIX (Mollica & Tardella) installed in a
# library on R_LIBS; PLMIX itself is not part of this repository.
#
#   Rscript bench/plmix_compare.R APA_CSV SIM_CSV
suppressMessages(library(PLMIX))
args <- commandArgs(trailingOnly = TRUE)
read_ord <- function(f) as.matrix(read.csv(f))
time_em <- function(label, pi_inv, G, runs = 3) {
  K <- ncol(pi_inv)
  set.seed(1)
  t <- system.time(for (r in seq_len(runs)) {
    fit <- mapPLMIX(pi_inv, K = K, G = G, n_iter = 5000, eps = 1e-10)
    its <- length(fit$log_lik)
  })[["elapsed"]]
  cat(sprintf("%s: PLMIX EM G=%d: %.3f s per run (%d iterations in the last, %.3f ms per iteration), loglik %.6f\n",
              label, G, t / runs, its, 1e3 * t / runs / its, max(fit$log_lik)))
}
time_gibbs <- function(label, pi_inv, G, lo = 20, hi = 120) {
  K <- ncol(pi_inv)
  set.seed(1)
  run <- function(n) system.time(gibbsPLMIX(pi_inv, K = K, G = G, n_iter = n, n_burn = 0))[["elapsed"]]
  a <- run(lo); b <- run(hi)
  cat(sprintf("%s: PLMIX Gibbs G=%d: %.4f ms per sweep (%d vs %d sweeps: %.3f s vs %.3f s)\n",
              label, G, 1e3 * (b - a) / (hi - lo), lo, hi, a, b))
}
apa <- read_ord(args[1]); sim <- read_ord(args[2])
time_em("d_apa (15,449 x 5)", apa, 2)
time_gibbs("d_apa (15,449 x 5)", apa, 2)
time_em("simulated 10000 top-5 of 20", sim, 3)
time_gibbs("simulated 10000 top-5 of 20", sim, 3)
