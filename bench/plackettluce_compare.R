# PlackettLuce (Turner et al. 2020), R's reference implementation of the
# Plackett-Luce model, fitted to a long CSV that plackett reads too; the
# outside oracle of bench/plackettluce_compare.sh. Nothing of it is in
# plackett.
#
#   Rscript bench/plackettluce_compare.R FILE.csv NPSEUDO REFERENCE [tight|default] [SD]
#
# FILE.csv has the columns ranking, rank, item (one row per ranked item;
# rank 1 is first). NPSEUDO is PlackettLuce's `npseudo` (pseudo-rankings
# against a ghost item; 0 for the plain MLE), REFERENCE the item whose
# log-worth is 0. `tight` sets epsilon = 1e-12 (PlackettLuce's default
# 1e-7 stops where the comparison would measure its stopping rule). SD
# adds PlackettLuce's normal prior N(0, SD^2) on every log-worth (a MAP fit,
# which PlackettLuce computes with optim's BFGS: `tight` then sets its
# reltol to 1e-15 instead of 1e-8).
#
# Prints "name estimate se" lines (log-worths relative to REFERENCE and
# their standard errors), then "loglik value" and "seconds value" (wall
# seconds of the fit and its summary, not of reading the file).
suppressPackageStartupMessages(library(PlackettLuce))
args <- commandArgs(trailingOnly = TRUE)
path <- args[1]
npseudo <- as.numeric(args[2])
ref <- args[3]
tight <- length(args) >= 4 && args[4] == "tight"
epsilon <- if (tight) 1e-12 else 1e-7
sd <- if (length(args) >= 5) as.numeric(args[5]) else NA

d <- read.csv(path, colClasses = c("character", "integer", "character"))
names(d) <- c("ranking", "rank", "item")
items <- sort(unique(d$item))
ids <- unique(d$ranking)
m <- matrix(0L, nrow = length(ids), ncol = length(items), dimnames = list(NULL, items))
m[cbind(match(d$ranking, ids), match(d$item, items))] <- d$rank

start <- proc.time()[["elapsed"]]
R <- as.rankings(m)
fit <- if (is.na(sd)) {
  PlackettLuce(R, npseudo = npseudo, epsilon = epsilon, maxit = c(5000, 10))
} else {
  prior <- list(mu = rep(0, length(items)), Sigma = diag(sd^2, length(items)))
  control <- if (tight) list(reltol = 1e-15) else list()
  PlackettLuce(R, npseudo = npseudo, normal = prior, maxit = c(100000, 10), control = control)
}
co <- coef(summary(fit, ref = ref))
seconds <- proc.time()[["elapsed"]] - start

for (k in seq_len(nrow(co))) {
  cat(rownames(co)[k], sprintf("%.15g", co[k, "Estimate"]), sprintf("%.15g", co[k, "Std. Error"]), "\n")
}
cat("loglik", sprintf("%.15g", as.numeric(logLik(fit))), "\n")
cat("seconds", sprintf("%.3f", seconds), "\n")
